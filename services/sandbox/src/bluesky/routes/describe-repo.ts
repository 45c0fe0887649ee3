import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { hostedAccount } from "../accounts.ts";
import { didDocumentOfAccount } from "../did-documents.ts";
import type { PdsHost } from "../network.ts";
import { recordsOf } from "../repo.ts";
import { mountXrpc, readParams } from "../xrpc.ts";

const NSID = "com.atproto.repo.describeRepo";

/** `com.atproto.repo.describeRepo`: handle, DID, DID document and collections of a repository on this PDS. */
export function registerDescribeRepo(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "get", "A repository's handle, DID document and collections", (c) => {
    const { repo } = readParams(c, NSID) as { repo: string };
    const account = hostedAccount(repo, host.name);
    if (!account) throw new PlatformFailure(400, "RepoNotFound", `Could not find repo for DID: ${repo}`);
    const collections = [...new Set(recordsOf(ctx, account.did).map((record) => record.collection))].sort();
    return c.json({
      handle: account.handle,
      did: account.did,
      didDoc: didDocumentOfAccount(c, host, account),
      collections,
      handleIsCorrect: true,
    });
  });
}
