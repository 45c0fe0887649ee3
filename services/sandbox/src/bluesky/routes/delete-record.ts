import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import type { PdsHost } from "../network.ts";
import { checkSwapCommit, deleteRecord, recordUri } from "../repo.ts";
import { writableRepo } from "../write-target.ts";
import { mountXrpc, readInput } from "../xrpc.ts";

const NSID = "com.atproto.repo.deleteRecord";

/**
 * `com.atproto.repo.deleteRecord`: removes a record of the caller's repository. A record that
 * does not exist is no error (200 without `commit`), as on a PDS; `swapRecord` must be the
 * current record's CID (400 `InvalidSwap`).
 */
export function registerDeleteRecord(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "post", "Delete a record (no error when it does not exist)", async (c) => {
    const body = await readInput(c, NSID);
    const account = writableRepo(c, ctx, host, body.repo as string);
    const uri = recordUri(account.did, body.collection as string, body.rkey as string);
    checkSwapCommit(ctx, account.did, body.swapCommit);
    const current = ctx.bluesky.records.get(uri);
    if (typeof body.swapRecord === "string" && body.swapRecord !== current?.cid) {
      throw new PlatformFailure(400, "InvalidSwap", `Record was at ${current?.cid ?? "null"}`);
    }
    const commit = await deleteRecord(ctx, uri, account.did);
    return c.json(commit ? { commit } : {});
  });
}
