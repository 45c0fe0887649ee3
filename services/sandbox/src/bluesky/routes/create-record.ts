import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { newTid } from "../identifiers.ts";
import type { PdsHost } from "../network.ts";
import { checkSwapCommit, recordUri, writeRecord } from "../repo.ts";
import { checkedRecord, writableRepo } from "../write-target.ts";
import { mountXrpc, readInput } from "../xrpc.ts";

const NSID = "com.atproto.repo.createRecord";

/**
 * `com.atproto.repo.createRecord`: any collection, any record the official lexicons accept (or,
 * unless `validate: true`, any record of a collection they do not know); an optional
 * caller-chosen `rkey` fitting the collection's key type. A record key in use is refused with
 * 400 `RecordAlreadyExists` and the first record stays (the publisher's exactly-once handle).
 */
export function registerCreateRecord(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "post", "Create a record (validated with the official lexicons)", async (c) => {
    const body = await readInput(c, NSID);
    const account = writableRepo(c, ctx, host, body.repo as string);
    const collection = body.collection as string;
    const rkey = (body.rkey as string | undefined) || newTid(ctx.kit.clock.now());
    const prepared = checkedRecord(ctx, account.did, {
      collection,
      rkey,
      record: body.record as Record<string, unknown>,
      validate: body.validate as boolean | undefined,
    });
    checkSwapCommit(ctx, account.did, body.swapCommit);
    const uri = recordUri(account.did, collection, rkey);
    if (ctx.bluesky.records.has(uri)) {
      throw new PlatformFailure(400, "RecordAlreadyExists", `Record already exists at ${uri}`);
    }
    const { record, commit } = await writeRecord(ctx, { did: account.did, collection, rkey }, prepared);
    return c.json({
      uri: record.uri,
      cid: record.cid,
      commit,
      ...(record.validationStatus ? { validationStatus: record.validationStatus } : {}),
    });
  });
}
