import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { findAccount, HANDLE_DOMAINS } from "../accounts.ts";
import type { PdsHost } from "../network.ts";
import { mountXrpc, readParams } from "../xrpc.ts";

const NSID = "com.atproto.identity.resolveHandle";

/**
 * `com.atproto.identity.resolveHandle`: the DID of any handle of the sandbox's network (its own
 * accounts, and those of the other PDS as the AppView resolves them). A handle under this PDS's
 * own domains that is not an account is 400 `HandleNotFound`; any other unknown handle 400
 * `InvalidRequest` "Unable to resolve handle", as a PDS answers.
 */
export function registerResolveHandle(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "get", "A handle's DID", (c) => {
    const handle = (readParams(c, NSID) as { handle: string }).handle.toLowerCase();
    const account = findAccount(handle);
    if (account) return c.json({ did: account.did });
    const ownDomain = HANDLE_DOMAINS[host.name].some(
      (domain) => handle.endsWith(domain) || handle === domain.slice(1),
    );
    throw new PlatformFailure(
      400,
      ownDomain ? "HandleNotFound" : "InvalidRequest",
      "Unable to resolve handle",
    );
  });
}
