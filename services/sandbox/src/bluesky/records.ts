import type { ServiceApp } from "@app/core";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { readJsonObject } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { ACCOUNT, accessCaller } from "./auth.ts";
import { xrpcErrors } from "./errors.ts";
import { isNsid, isTid, newTid, recordCid } from "./identifiers.ts";
import { checkPostRecord } from "./post-record.ts";
import type { StoredRecord } from "./state.ts";

const POST = "app.bsky.feed.post";
const invalid = (message: string) => new PlatformFailure(400, "InvalidRequest", message);

type WriteInput = {
  did: string;
  collection: string;
  rkey: string | undefined;
  record: Record<string, unknown>;
};

/** The repo, collection, rkey and record of a write, checked; the repo must be the caller's own. */
async function readWrite(
  c: Context,
  ctx: SandboxContext,
): Promise<WriteInput & { body: Record<string, unknown> }> {
  const did = accessCaller(c, ctx);
  const body = await readJsonObject(c, () => invalid("Request body must be a JSON object"));
  const { repo, collection, rkey, record } = body;
  if (
    typeof repo !== "string" ||
    typeof collection !== "string" ||
    typeof record !== "object" ||
    record === null
  ) {
    throw invalid('Input must have the properties "repo", "collection" and "record"');
  }
  if (repo !== did && repo !== ACCOUNT.handle)
    throw new PlatformFailure(400, "InvalidRequest", `Could not find repo: ${repo.slice(0, 100)}`);
  if (!isNsid(collection)) throw invalid("Input/collection must be a valid nsid");
  if (collection !== POST) throw invalid(`The sandbox stores ${POST} records only`);
  if (rkey !== undefined && (typeof rkey !== "string" || !isTid(rkey))) {
    throw invalid(`Invalid record key: ${POST} records use TIDs (13 base32-sortable characters)`);
  }
  const problem = checkPostRecord(record, (cid) => {
    const blob = ctx.bluesky.blobs.get(cid);
    return blob?.did === did ? blob : undefined;
  });
  if (problem) throw new PlatformFailure(400, problem.error, problem.message);
  return {
    did,
    collection,
    rkey: rkey as string | undefined,
    record: record as Record<string, unknown>,
    body,
  };
}

function save(
  ctx: SandboxContext,
  input: WriteInput & { rkey: string },
  previous?: StoredRecord,
): StoredRecord {
  const uri = `at://${input.did}/${input.collection}/${input.rkey}`;
  const now = ctx.kit.clock.now().toISOString();
  const stored: StoredRecord = {
    uri,
    cid: recordCid(input.record),
    did: input.did,
    collection: input.collection,
    rkey: input.rkey,
    value: input.record,
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
  };
  ctx.bluesky.records.set(uri, stored);
  return stored;
}

function writeAnswer(ctx: SandboxContext, stored: StoredRecord) {
  return {
    uri: stored.uri,
    cid: stored.cid,
    commit: {
      cid: recordCid({ commit: stored.uri, at: stored.updatedAt }),
      rev: newTid(ctx.kit.clock.now()),
    },
    validationStatus: "valid",
  };
}

/** `com.atproto.repo.createRecord`, `putRecord` and `getRecord` for `app.bsky.feed.post`. */
export function registerBlueskyRecords(app: ServiceApp, ctx: SandboxContext): void {
  const xrpc = (
    name: string,
    method: "get" | "post",
    summary: string,
    handler: Parameters<typeof mountOperation>[3],
  ) =>
    mountOperation(
      app,
      ctx.kit,
      { operation: name, platform: "bluesky", method, path: `/xrpc/${name}`, summary, errors: xrpcErrors },
      handler,
    );
  xrpc(
    "com.atproto.repo.createRecord",
    "post",
    "Create a post; a caller-chosen rkey that exists already is refused (RecordAlreadyExists)",
    async (c) => {
      const input = await readWrite(c, ctx);
      const rkey = input.rkey ?? newTid(ctx.kit.clock.now());
      if (ctx.bluesky.records.has(`at://${input.did}/${input.collection}/${rkey}`)) {
        throw new PlatformFailure(
          400,
          "RecordAlreadyExists",
          `Record already exists at at://${input.did}/${input.collection}/${rkey}`,
        );
      }
      return c.json(writeAnswer(ctx, save(ctx, { ...input, rkey })));
    },
  );
  xrpc(
    "com.atproto.repo.putRecord",
    "post",
    "Create or replace a post at an rkey (swapRecord: null means it must not exist yet)",
    async (c) => {
      const input = await readWrite(c, ctx);
      if (!input.rkey) throw invalid('Input must have the property "rkey"');
      const previous = ctx.bluesky.records.get(`at://${input.did}/${input.collection}/${input.rkey}`);
      if ("swapRecord" in input.body) {
        const swap = input.body.swapRecord;
        if ((swap === null && previous) || (swap !== null && swap !== previous?.cid)) {
          throw new PlatformFailure(400, "InvalidSwap", `Record was at ${previous?.cid ?? "null"}`);
        }
      }
      return c.json(writeAnswer(ctx, save(ctx, { ...input, rkey: input.rkey }, previous)));
    },
  );
  xrpc("com.atproto.repo.getRecord", "get", "Read a record back (no authentication, as on a PDS)", (c) => {
    const repo = c.req.query("repo") ?? "";
    const collection = c.req.query("collection") ?? "";
    const rkey = c.req.query("rkey") ?? "";
    if (!repo || !collection || !rkey)
      throw invalid('Params must have the properties "repo", "collection" and "rkey"');
    const did = repo === ACCOUNT.handle ? ACCOUNT.did : repo;
    const uri = `at://${did}/${collection}/${rkey}`;
    const stored = ctx.bluesky.records.get(uri);
    const cid = c.req.query("cid");
    if (!stored || (cid !== undefined && cid !== stored.cid)) {
      throw new PlatformFailure(400, "RecordNotFound", `Could not locate record: ${uri.slice(0, 300)}`);
    }
    return c.json({ uri: stored.uri, cid: stored.cid, value: stored.value });
  });
}
