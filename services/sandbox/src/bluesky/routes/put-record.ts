import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import type { PdsHost } from "../network.ts";
import { recordCid } from "../record-cid.ts";
import { checkSwapCommit, recordUri, writeRecord } from "../repo.ts";
import { checkedRecord, writableRepo } from "../write-target.ts";
import { mountXrpc, readInput } from "../xrpc.ts";

const NSID = "com.atproto.repo.putRecord";

/**
 * `com.atproto.repo.putRecord`: creates or replaces the record at an `rkey`, with createRecord's
 * checks. `swapRecord: null` means "must not exist yet", a CID must be the current record's
 * (else 400 `InvalidSwap`); the same record again changes nothing (no commit), as on a PDS.
 */
export function registerPutRecord(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "post", "Create or replace a record at an rkey", async (c) => {
    const body = await readInput(c, NSID);
    const account = writableRepo(c, ctx, host, body.repo as string);
    const collection = body.collection as string;
    const rkey = body.rkey as string;
    const prepared = checkedRecord(ctx, account.did, {
      collection,
      rkey,
      record: body.record as Record<string, unknown>,
      validate: body.validate as boolean | undefined,
    });
    checkSwapCommit(ctx, account.did, body.swapCommit);
    const previous = ctx.bluesky.records.get(recordUri(account.did, collection, rkey));
    if ("swapRecord" in body) {
      const swap = body.swapRecord;
      if ((swap === null && previous) || (swap !== null && swap !== previous?.cid)) {
        throw new PlatformFailure(400, "InvalidSwap", `Record was at ${previous?.cid ?? "null"}`);
      }
    }
    const status = prepared.validationStatus ? { validationStatus: prepared.validationStatus } : {};
    if (previous && previous.cid === (await recordCid(prepared.value))) {
      return c.json({ uri: previous.uri, cid: previous.cid, ...status });
    }
    const { record, commit } = await writeRecord(ctx, { did: account.did, collection, rkey }, prepared);
    return c.json({ uri: record.uri, cid: record.cid, commit, ...status });
  });
}
