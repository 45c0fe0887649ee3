import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { HANDLE_DOMAINS } from "../accounts.ts";
import { type PdsHost, pdsDid } from "../network.ts";
import { mountXrpc } from "../xrpc.ts";

/** `com.atproto.server.describeServer`: the PDS's DID, handle domains and terms, as a PDS describes itself. */
export function registerDescribeServer(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(
    app,
    ctx,
    "com.atproto.server.describeServer",
    "get",
    "The PDS's DID, handle domains and policies",
    (c) =>
      c.json({
        did: pdsDid(c),
        availableUserDomains: HANDLE_DOMAINS[host.name],
        inviteCodeRequired: true,
        phoneVerificationRequired: false,
        links: {},
        contact: {},
      }),
  );
}
