import { json } from "@app/testkit";
import { lexicons } from "@atproto/api";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../../src/demo.ts";
import { blueskySession, postJson, type SandboxNetwork, startSandboxNetwork } from "../harness.ts";

let sandbox: SandboxNetwork;
let accessJwt: string;
beforeAll(async () => {
  sandbox = await startSandboxNetwork();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  accessJwt = (await blueskySession(sandbox.url, DEMO_BLUESKY)).accessJwt;
});

const POST = "app.bsky.feed.post";
/** Record keys in ascending order (TIDs sort as they were made). */
const RKEYS = ["3lbsandbox22a", "3lbsandbox22b", "3lbsandbox22c", "3lbsandbox22d", "3lbsandbox22e"];
const call = (name: string, body: Record<string, unknown>, token = accessJwt) =>
  fetch(`${sandbox.url}/xrpc/${name}`, postJson(body, token));
const query = (name: string, params: Record<string, string>, service = sandbox.url) =>
  fetch(`${service}/xrpc/${name}?${new URLSearchParams(params)}`);
const createPosts = async () => {
  for (const rkey of RKEYS) {
    const res = await call("com.atproto.repo.createRecord", {
      repo: DEMO_BLUESKY.did,
      collection: POST,
      rkey,
      record: { text: `post ${rkey}`, createdAt: "2026-11-22T10:00:00.000Z" },
    });
    expect(res.status).toBe(200);
  }
};
const keysOf = (answer: { records: { uri: string }[] }) =>
  answer.records.map((record) => record.uri.split("/").pop());
const valid = (nsid: string, answer: unknown) => () => lexicons.assertValidXrpcOutput(nsid, answer);

describe("com.atproto.repo.listRecords", () => {
  test("newest record key first, paged by limit and cursor", async () => {
    await createPosts();
    const first = await json(
      await query("com.atproto.repo.listRecords", { repo: DEMO_BLUESKY.did, collection: POST, limit: "2" }),
    );
    expect(valid("com.atproto.repo.listRecords", first)).not.toThrow();
    expect(keysOf(first)).toEqual([RKEYS[4], RKEYS[3]]);
    expect(first.cursor).toBe(RKEYS[3]);
    const second = await json(
      await query("com.atproto.repo.listRecords", {
        repo: DEMO_BLUESKY.handle,
        collection: POST,
        limit: "2",
        cursor: first.cursor,
      }),
    );
    expect(keysOf(second)).toEqual([RKEYS[2], RKEYS[1]]);
    expect(first.records[0]).toEqual({
      uri: expect.any(String),
      cid: expect.stringMatching(/^bafyrei/),
      value: expect.objectContaining({ $type: POST }),
    });
  });

  test("reverse: oldest first, the cursor pages forward", async () => {
    await createPosts();
    const page = await json(
      await query("com.atproto.repo.listRecords", {
        repo: DEMO_BLUESKY.did,
        collection: POST,
        reverse: "true",
        limit: "3",
        cursor: RKEYS[0] as string,
      }),
    );
    expect(keysOf(page)).toEqual([RKEYS[1], RKEYS[2], RKEYS[3]]);
  });

  test("an empty collection answers no records and no cursor; limit over 100 and unknown repos are refused", async () => {
    const empty = await json(
      await query("com.atproto.repo.listRecords", {
        repo: DEMO_BLUESKY.did,
        collection: "app.bsky.feed.like",
      }),
    );
    expect(empty).toEqual({ records: [] });
    const tooMany = await query("com.atproto.repo.listRecords", {
      repo: DEMO_BLUESKY.did,
      collection: POST,
      limit: "101",
    });
    expect(tooMany.status).toBe(400);
    expect(await json(tooMany)).toEqual({
      error: "InvalidRequest",
      message: "limit can not be greater than 100",
    });
    const unknown = await query("com.atproto.repo.listRecords", {
      repo: "did:plc:nobodyaaaaaaaaaaaaaaaaaa",
      collection: POST,
    });
    expect(unknown.status).toBe(400);
    expect(await json(unknown)).toEqual({
      error: "InvalidRequest",
      message: "Could not find repo: did:plc:nobodyaaaaaaaaaaaaaaaaaa",
    });
  });
});

describe("com.atproto.repo.deleteRecord", () => {
  test("deletes a record (a new commit), and deleting it again is a no-op without commit", async () => {
    await createPosts();
    const target = { repo: DEMO_BLUESKY.did, collection: POST, rkey: RKEYS[0] };
    const deleted = await call("com.atproto.repo.deleteRecord", target);
    expect(deleted.status).toBe(200);
    const answer = await json(deleted);
    expect(answer.commit).toEqual({ cid: expect.stringMatching(/^bafyrei/), rev: expect.any(String) });
    expect(valid("com.atproto.repo.deleteRecord", answer)).not.toThrow();
    const read = await query("com.atproto.repo.getRecord", {
      repo: DEMO_BLUESKY.did,
      collection: POST,
      rkey: RKEYS[0] as string,
    });
    expect((await json(read)).error).toBe("RecordNotFound");
    const again = await call("com.atproto.repo.deleteRecord", target);
    expect(again.status).toBe(200);
    expect(await json(again)).toEqual({});
  });

  test("swapRecord must be the record's current CID; swapCommit the repository's current commit", async () => {
    await createPosts();
    const target = { repo: DEMO_BLUESKY.did, collection: POST, rkey: RKEYS[1] };
    const wrong = await call("com.atproto.repo.deleteRecord", {
      ...target,
      swapRecord: "bafyreiclp443lavogvhj3d2ob2cxbfuscni2k5jk7bebjzg7khl3esabwq",
    });
    expect(wrong.status).toBe(400);
    expect((await json(wrong)).error).toBe("InvalidSwap");
    const staleCommit = await call("com.atproto.repo.deleteRecord", {
      ...target,
      swapCommit: "bafyreiclp443lavogvhj3d2ob2cxbfuscni2k5jk7bebjzg7khl3esabwq",
    });
    expect(staleCommit.status).toBe(400);
    expect((await json(staleCommit)).error).toBe("InvalidSwap");
  });

  test("without a token it is 401, and another account's repo is refused", async () => {
    await createPosts();
    expect(
      (
        await call(
          "com.atproto.repo.deleteRecord",
          { repo: DEMO_BLUESKY.did, collection: POST, rkey: RKEYS[0] },
          "",
        )
      ).status,
    ).toBe(401);
    const other = await call("com.atproto.repo.deleteRecord", {
      repo: DEMO_BLUESKY_SELF_HOSTED.did,
      collection: POST,
      rkey: RKEYS[0],
    });
    expect(other.status).toBe(403);
  });
});

describe("com.atproto.repo.describeRepo, identity.resolveHandle, server.describeServer", () => {
  test("describeRepo: handle, DID document and the collections written", async () => {
    await createPosts();
    const answer = await json(await query("com.atproto.repo.describeRepo", { repo: DEMO_BLUESKY.handle }));
    expect(valid("com.atproto.repo.describeRepo", answer)).not.toThrow();
    expect(answer).toMatchObject({
      handle: DEMO_BLUESKY.handle,
      did: DEMO_BLUESKY.did,
      collections: [POST],
      handleIsCorrect: true,
      didDoc: { id: DEMO_BLUESKY.did, service: [{ serviceEndpoint: sandbox.url }] },
    });
    const unknown = await query("com.atproto.repo.describeRepo", { repo: DEMO_BLUESKY_SELF_HOSTED.did });
    expect(unknown.status).toBe(400);
    expect(await json(unknown)).toEqual({
      error: "RepoNotFound",
      message: `Could not find repo for DID: ${DEMO_BLUESKY_SELF_HOSTED.did}`,
    });
  });

  test("resolveHandle resolves the handles of both PDSes, as the network's entryway does", async () => {
    for (const account of [DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED]) {
      const res = await query("com.atproto.identity.resolveHandle", { handle: account.handle });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ did: account.did });
    }
  });

  test("resolveHandle: an unknown handle of this PDS's domain is HandleNotFound, another unknown one InvalidRequest", async () => {
    const ownDomain = await query("com.atproto.identity.resolveHandle", { handle: "nobody.bsky.test" });
    expect(await json(ownDomain)).toEqual({ error: "HandleNotFound", message: "Unable to resolve handle" });
    const elsewhere = await query("com.atproto.identity.resolveHandle", { handle: "nobody.example.org" });
    expect(await json(elsewhere)).toEqual({ error: "InvalidRequest", message: "Unable to resolve handle" });
    const malformed = await query("com.atproto.identity.resolveHandle", { handle: "not a handle" });
    expect(malformed.status).toBe(400);
    expect((await json(malformed)).message).toBe("handle must be a valid handle");
  });

  test("describeServer names each PDS's handle domains", async () => {
    const main = await json(await query("com.atproto.server.describeServer", {}));
    expect(valid("com.atproto.server.describeServer", main)).not.toThrow();
    expect(main).toMatchObject({
      did: expect.stringMatching(/^did:web:127\.0\.0\.1/),
      availableUserDomains: [".bsky.test"],
    });
    const second = await json(await query("com.atproto.server.describeServer", {}, sandbox.pds2Url));
    expect(second.availableUserDomains).toEqual([".pds2.test"]);
  });
});

describe("methods the twin does not serve", () => {
  test("an unknown method is 501 MethodNotImplemented, on both PDSes", async () => {
    for (const service of [sandbox.url, sandbox.pds2Url]) {
      const res = await fetch(`${service}/xrpc/app.bsky.feed.getTimeline`, {
        headers: { authorization: `Bearer ${accessJwt}` },
      });
      expect(res.status).toBe(501);
      expect(await json(res)).toEqual({ error: "MethodNotImplemented", message: "Method Not Implemented" });
    }
    expect((await fetch(`${sandbox.url}/xrpc/com.example.no.such.method`, { method: "POST" })).status).toBe(
      501,
    );
  });

  test("a known method with the wrong HTTP method, and a path that is no NSID, are 400 InvalidRequest", async () => {
    const wrong = await fetch(`${sandbox.url}/xrpc/com.atproto.repo.createRecord`);
    expect(wrong.status).toBe(400);
    expect(await json(wrong)).toEqual({
      error: "InvalidRequest",
      message: "Incorrect HTTP method (GET) expected POST",
    });
    const bad = await fetch(`${sandbox.url}/xrpc/not_an_nsid`);
    expect(await json(bad)).toEqual({ error: "InvalidRequest", message: "invalid xrpc path" });
  });
});
