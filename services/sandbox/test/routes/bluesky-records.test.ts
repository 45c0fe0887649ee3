import { json } from "@app/testkit";
import { AtpAgent, lexicons } from "@atproto/api";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../../src/demo.ts";
import { blueskySession, mediaFile, postJson, type SandboxNetwork, startSandboxNetwork } from "../harness.ts";

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

const RKEY = "3lbsandbox22a";
const CREATED_AT = "2026-11-22T10:00:00.000Z";
/** A record CID (any valid one: a strong ref need not point at a stored record). */
const RECORD_CID = "bafyreiclp443lavogvhj3d2ob2cxbfuscni2k5jk7bebjzg7khl3esabwq";
/** A CID no blob of the sandbox has (valid syntax). */
const UNKNOWN_BLOB = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
const post = (text: string, extra: Record<string, unknown> = {}) => ({
  $type: "app.bsky.feed.post",
  text,
  createdAt: CREATED_AT,
  ...extra,
});
const xrpc = (name: string, body: Record<string, unknown>, token = accessJwt) =>
  fetch(`${sandbox.url}/xrpc/${name}`, postJson(body, token));
const create = (body: Record<string, unknown>, token = accessJwt) =>
  xrpc(
    "com.atproto.repo.createRecord",
    { repo: DEMO_BLUESKY.did, collection: "app.bsky.feed.post", ...body },
    token,
  );
const uploadBlob = (bytes: Buffer, type: string, token = accessJwt) =>
  fetch(`${sandbox.url}/xrpc/com.atproto.repo.uploadBlob`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": type },
    body: bytes,
  });
const getRecord = (repo: string, collection: string, rkey: string) =>
  fetch(`${sandbox.url}/xrpc/com.atproto.repo.getRecord?repo=${repo}&collection=${collection}&rkey=${rkey}`);
const imageBlob = async (size = 50_000) =>
  (await json(await uploadBlob(mediaFile("jpeg", size), "image/jpeg"))).blob;
const maxSizeOf = (uri: string, property: string) =>
  (lexicons.getDefOrThrow(uri) as { properties: Record<string, { maxSize: number }> }).properties[property]
    ?.maxSize as number;

describe("com.atproto.repo.createRecord, putRecord and getRecord: success", () => {
  test("the official client posts, and the record reads back with getRecord", async () => {
    const agent = new AtpAgent({ service: sandbox.url });
    await agent.login({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword });
    const created = await agent.post({ text: "Hello from the sandbox 👋" });
    expect(created.uri).toMatch(
      new RegExp(`^at://${DEMO_BLUESKY.did}/app\\.bsky\\.feed\\.post/[a-z2-7]{13}$`),
    );
    const read = await agent.com.atproto.repo.getRecord({
      repo: DEMO_BLUESKY.did,
      collection: "app.bsky.feed.post",
      rkey: created.uri.split("/").pop() ?? "",
    });
    expect(read.data).toMatchObject({
      uri: created.uri,
      cid: created.cid,
      value: { text: "Hello from the sandbox 👋" },
    });
  });

  test("a caller-chosen rkey names the record; the answer is what the lexicon says createRecord answers", async () => {
    const res = await create({ rkey: RKEY, record: post("exactly once") });
    expect(res.status).toBe(200);
    const answer = await json(res);
    expect(answer).toMatchObject({
      uri: `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
      cid: expect.stringMatching(/^bafyrei[a-z2-7]+$/),
      commit: { cid: expect.stringMatching(/^bafyrei/), rev: expect.stringMatching(/^[a-z2-7]{13}$/) },
      validationStatus: "valid",
    });
    expect(() => lexicons.assertValidXrpcOutput("com.atproto.repo.createRecord", answer)).not.toThrow();
  });

  test.for<[string, Record<string, unknown>]>([
    [
      "a quote post (app.bsky.embed.record)",
      post("quoting", {
        embed: {
          $type: "app.bsky.embed.record",
          record: {
            uri: `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
            cid: RECORD_CID,
          },
        },
      }),
    ],
    [
      "a link card (app.bsky.embed.external)",
      post("a link", {
        embed: {
          $type: "app.bsky.embed.external",
          external: { uri: "https://example.com/a?b=c", title: "A page", description: "What it says" },
        },
      }),
    ],
    [
      "facets, tags, langs and a reply",
      post("hi @sandbox-demo.bsky.test #twin", {
        langs: ["en"],
        tags: ["check"],
        facets: [
          {
            index: { byteStart: 3, byteEnd: 26 },
            features: [{ $type: "app.bsky.richtext.facet#mention", did: DEMO_BLUESKY.did }],
          },
          {
            index: { byteStart: 27, byteEnd: 32 },
            features: [{ $type: "app.bsky.richtext.facet#tag", tag: "twin" }],
          },
        ],
        reply: {
          root: {
            uri: `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
            cid: RECORD_CID,
          },
          parent: {
            uri: `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
            cid: RECORD_CID,
          },
        },
      }),
    ],
  ])("%s is accepted", async ([, record]) => {
    const res = await create({ record });
    expect(res.status).toBe(200);
    expect((await json(res)).validationStatus).toBe("valid");
  });

  test("other collections of the lexicons are accepted: a like and a follow", async () => {
    const subject = {
      uri: `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
      cid: RECORD_CID,
    };
    const like = await create({
      collection: "app.bsky.feed.like",
      record: { $type: "app.bsky.feed.like", subject, createdAt: CREATED_AT },
    });
    expect(like.status).toBe(200);
    expect((await json(like)).uri).toContain("/app.bsky.feed.like/");
    const follow = await create({
      collection: "app.bsky.graph.follow",
      record: { subject: DEMO_BLUESKY_SELF_HOSTED.did, createdAt: CREATED_AT },
    });
    expect(follow.status).toBe(200);
  });

  test("a collection the lexicons do not know is stored as unknown; validate: false stores without a status", async () => {
    const unknown = await create({
      collection: "com.example.sandbox.thing",
      record: { anything: [1, "two"] },
    });
    expect(unknown.status).toBe(200);
    expect((await json(unknown)).validationStatus).toBe("unknown");
    const unvalidated = await create({ record: { text: 42 }, validate: false });
    expect(unvalidated.status).toBe(200);
    expect(await json(unvalidated)).not.toHaveProperty("validationStatus");
  });

  test("an uploaded image is embedded; the stored blob is listed with its size and hash", async () => {
    const blob = await imageBlob();
    const res = await create({
      record: post("with a photo", {
        embed: {
          $type: "app.bsky.embed.images",
          images: [{ image: blob, alt: "a photo", aspectRatio: { width: 4, height: 3 } }],
        },
      }),
    });
    expect(res.status).toBe(200);
    const listed = await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`));
    expect(listed.blobs).toEqual([expect.objectContaining({ size: 50_000, mimeType: "image/jpeg" })]);
    expect(listed.records[0].value.embed.images[0].image.ref.$link).toBe(blob.ref.$link);
    expect(listed.records[0].blobs).toEqual([blob.ref.$link]);
  });

  test("a video is embedded as an mp4 blob", async () => {
    const { blob } = await json(await uploadBlob(mediaFile("mp4", 2_000_000), "video/mp4"));
    const res = await create({
      record: post("a clip", { embed: { $type: "app.bsky.embed.video", video: blob } }),
    });
    expect(res.status).toBe(200);
  });

  test("putRecord with swapRecord null creates once and refuses when the record exists", async () => {
    const put = () =>
      xrpc("com.atproto.repo.putRecord", {
        repo: DEMO_BLUESKY.did,
        collection: "app.bsky.feed.post",
        rkey: RKEY,
        swapRecord: null,
        record: post("put"),
      });
    expect((await put()).status).toBe(200);
    const again = await put();
    expect(again.status).toBe(400);
    expect((await json(again)).error).toBe("InvalidSwap");
  });

  test("putRecord of a profile takes the lexicon's literal:self key", async () => {
    const put = (rkey: string) =>
      xrpc("com.atproto.repo.putRecord", {
        repo: DEMO_BLUESKY.handle,
        collection: "app.bsky.actor.profile",
        rkey,
        record: { displayName: "Sandbox Demo" },
      });
    expect((await put("self")).status).toBe(200);
    const wrongKey = await put("3lbsandbox22a");
    expect(wrongKey.status).toBe(400);
    expect((await json(wrongKey)).message).toContain(
      'Invalid record key for app.bsky.actor.profile: the record key must be "self"',
    );
  });
});

describe("com.atproto.repo.createRecord, putRecord and getRecord: errors", () => {
  test("creating the same rkey twice is refused with RecordAlreadyExists and keeps the first record", async () => {
    expect((await create({ rkey: RKEY, record: post("first") })).status).toBe(200);
    const again = await create({ rkey: RKEY, record: post("second") });
    expect(again.status).toBe(400);
    expect((await json(again)).error).toBe("RecordAlreadyExists");
    expect((await json(await getRecord(DEMO_BLUESKY.did, "app.bsky.feed.post", RKEY))).value.text).toBe(
      "first",
    );
  });

  const facet = (byteStart: number) => ({
    index: { byteStart, byteEnd: 2 },
    features: [{ $type: "app.bsky.richtext.facet#link", uri: "https://example.com" }],
  });
  test.for<[string, Record<string, unknown>, string]>([
    [
      "text over 300 graphemes",
      { record: post("a".repeat(301)) },
      "Record/text must not be longer than 300 graphemes",
    ],
    ["text over 3000 bytes", { record: post("é".repeat(1501)) }, "Record/text must not be longer than 3000"],
    [
      "a facet with byteStart -1",
      { record: post("hi", { facets: [facet(-1)] }) },
      "Record/facets/0/index/byteStart",
    ],
    [
      "9 tags",
      { record: post("x", { tags: ["a", "b", "c", "d", "e", "f", "g", "h", "i"] }) },
      "Record/tags must not have more than 8 elements",
    ],
    [
      "a malformed reply",
      { record: post("x", { reply: { root: { uri: "not an at-uri" } } }) },
      "Record/reply/root/uri must be a valid at-uri",
    ],
    [
      "an invalid external.uri",
      {
        record: post("x", {
          embed: {
            $type: "app.bsky.embed.external",
            external: { uri: "no uri", title: "", description: "" },
          },
        }),
      },
      "Record/embed/external/uri must be a uri",
    ],
    [
      "a missing createdAt",
      { record: { $type: "app.bsky.feed.post", text: "x" } },
      'Record must have the property "createdAt"',
    ],
    [
      "a date without a time",
      { record: post("x", { createdAt: "2026-11-22" }) },
      "Record/createdAt must be an valid atproto datetime",
    ],
    [
      "a record key that is not a TID",
      { rkey: "my-post", record: post("x") },
      "the record key must be a TID",
    ],
    [
      "a $type other than the collection",
      { record: { ...post("x"), $type: "app.bsky.feed.like" } },
      "Invalid $type: expected app.bsky.feed.post",
    ],
    ["a float", { record: post("x", { weight: 1.5 }) }, "Record/weight (1.5) is not an integer"],
    [
      "an unknown collection with validate: true",
      { collection: "com.example.sandbox.thing", record: { a: 1 }, validate: true },
      "Unknown lexicon type: com.example.sandbox.thing",
    ],
    [
      "a collection that is not an NSID",
      { collection: "not an nsid", record: post("x") },
      "Input/collection must be a valid nsid",
    ],
    ["a body without a record", { record: undefined }, 'Input must have the property "record"'],
  ])("%s is 400 InvalidRequest with the validator's message", async ([, body, words]) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    const answer = await json(res);
    expect(answer).toEqual({ error: "InvalidRequest", message: expect.stringContaining(words) });
  });

  test("an image with aspectRatio.width 0 is refused, naming the path", async () => {
    const blob = await imageBlob();
    const res = await create({
      record: post("x", {
        embed: {
          $type: "app.bsky.embed.images",
          images: [{ image: blob, alt: "", aspectRatio: { width: 0, height: 3 } }],
        },
      }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toBe(
      "Invalid app.bsky.feed.post record: Record/embed/images/0/aspectRatio/width can not be less than 1",
    );
  });

  test("a blob that was never uploaded is BlobNotFound; one whose ref misstates its type is InvalidMimeType", async () => {
    const missing = await create({
      record: post("x", {
        embed: {
          $type: "app.bsky.embed.images",
          images: [
            {
              alt: "",
              image: { $type: "blob", ref: { $link: UNKNOWN_BLOB }, mimeType: "image/jpeg", size: 1 },
            },
          ],
        },
      }),
    });
    expect(missing.status).toBe(400);
    expect(await json(missing)).toEqual({
      error: "BlobNotFound",
      message: `Could not find blob: ${UNKNOWN_BLOB}`,
    });
    const blob = await imageBlob();
    const lying = await create({
      record: post("x", {
        embed: {
          $type: "app.bsky.embed.images",
          images: [{ alt: "", image: { ...blob, mimeType: "image/png" } }],
        },
      }),
    });
    expect(lying.status).toBe(400);
    expect((await json(lying)).error).toBe("InvalidMimeType");
  });

  test("an image over the lexicon's maxSize is refused, measured on the stored blob", async () => {
    const maxSize = maxSizeOf("app.bsky.embed.images#image", "image");
    const blob = await imageBlob(maxSize + 1);
    const res = await create({
      record: post("big", { embed: { $type: "app.bsky.embed.images", images: [{ image: blob, alt: "" }] } }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toBe(
      `Invalid app.bsky.feed.post record: Record/embed/images/0/image blob too big (maximum ${maxSize}, got ${maxSize + 1})`,
    );
    const understated = await create({
      record: post("big", {
        embed: { $type: "app.bsky.embed.images", images: [{ image: { ...blob, size: 10 }, alt: "" }] },
      }),
    });
    expect(understated.status).toBe(400);
    expect((await json(understated)).message).toContain("blob too big");
  });

  test("a video blob that is not MP4 (sniffed, whatever was declared) is refused by the video lexicon's accept", async () => {
    const { blob } = await json(await uploadBlob(mediaFile("mov", 200_000), "video/mp4"));
    expect(blob.mimeType).toBe("video/quicktime");
    const res = await create({
      record: post("a clip", { embed: { $type: "app.bsky.embed.video", video: blob } }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).message).toBe(
      "Invalid app.bsky.feed.post record: Record/embed/video mimeType must be one of video/mp4 (got video/quicktime)",
    );
  });

  test("getRecord of a missing record is RecordNotFound", async () => {
    const res = await getRecord(DEMO_BLUESKY.did, "app.bsky.feed.post", RKEY);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: "RecordNotFound",
      message: `Could not locate record: at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
    });
  });
});

describe("com.atproto.repo.createRecord, putRecord and getRecord: security", () => {
  test("writing without a token is 401; into a repo this PDS does not hold, 403 AccountNotFound", async () => {
    expect((await create({ record: post("x") }, "")).status).toBe(401);
    for (const repo of ["did:plc:someoneelseaaaaaaaaaaaaa", DEMO_BLUESKY_SELF_HOSTED.did]) {
      const other = await create({ repo, record: post("x") });
      expect(other.status).toBe(403);
      expect(await json(other)).toEqual({ error: "AccountNotFound", message: "Account not found" });
    }
    expect((await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`))).records).toEqual([]);
  });

  /** A write whose JSON body is sent as written (a `__proto__` key stays a key, as on the wire). */
  const rawWrite = (name: string, body: string) =>
    fetch(`${sandbox.url}/xrpc/${name}`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessJwt}`, "content-type": "application/json" },
      body,
    });
  const recordJson = (fields: string) =>
    `{"$type":"app.bsky.feed.post","text":"x","createdAt":"${CREATED_AT}"${fields}}`;
  const storedRecords = async () =>
    (await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`))).records as unknown[];

  test("a __proto__ key, in a record or in the body, is 400 InvalidRequest as a PDS answers it, and stores nothing", async () => {
    const repo = `"repo":"${DEMO_BLUESKY.did}","collection":"app.bsky.feed.post"`;
    const bodies: [string, string][] = [
      ["com.atproto.repo.createRecord", `{${repo},"record":${recordJson(',"__proto__":{"polluted":1}')}}`],
      [
        "com.atproto.repo.createRecord",
        `{${repo},"record":${recordJson(',"embed":{"$type":"app.bsky.embed.external","external":{"__proto__":{}}}')}}`,
      ],
      [
        "com.atproto.repo.putRecord",
        `{${repo},"rkey":"${RKEY}","record":${recordJson(',"__proto__":null')}}`,
      ],
      [
        "com.atproto.repo.createRecord",
        `{"__proto__":{"validate":false},${repo},"record":${recordJson("")}}`,
      ],
    ];
    for (const [name, body] of bodies) {
      const res = await rawWrite(name, body);
      expect(res.status, body).toBe(400);
      expect(await json(res)).toEqual({ error: "InvalidRequest", message: "Invalid key: __proto__" });
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(await storedRecords()).toEqual([]);
  });

  test("a record nested 200,000 levels deep is 400 InvalidRequest, not a 500, and the PDS answers on", async () => {
    const depth = 200_000;
    const repo = `"repo":"${DEMO_BLUESKY.did}","collection":"app.bsky.feed.post"`;
    for (const [name, extra, nested] of [
      ["com.atproto.repo.createRecord", "", `${"[".repeat(depth)}${"]".repeat(depth)}`],
      ["com.atproto.repo.putRecord", `,"rkey":"${RKEY}"`, `${'{"":'.repeat(depth)}1${"}".repeat(depth)}`],
    ] as const) {
      const res = await rawWrite(name, `{${repo}${extra},"record":${recordJson(`,"deep":${nested}`)}}`);
      expect(res.status, name).toBe(400);
      expect((await json(res)).error).toBe("InvalidRequest");
    }
    expect(await storedRecords()).toEqual([]);
    expect((await create({ record: post("still here") })).status).toBe(200);
  });

  test("a field nested 900 levels deep is stored and read back, as a PDS keeps fields the lexicon does not name", async () => {
    const deep = JSON.parse(`${"[".repeat(900)}${"]".repeat(900)}`);
    const created = await create({ rkey: RKEY, record: post("deep", { deep }) });
    expect(created.status).toBe(200);
    const read = await getRecord(DEMO_BLUESKY.did, "app.bsky.feed.post", RKEY);
    expect(read.status).toBe(200);
    expect((await json(read)).value.deep).toEqual(deep);
  });

  test("a blob uploaded by another account cannot be embedded", async () => {
    const other = await blueskySession(sandbox.pds2Url, DEMO_BLUESKY_SELF_HOSTED);
    const { blob } = await json(
      await fetch(`${sandbox.pds2Url}/xrpc/com.atproto.repo.uploadBlob`, {
        method: "POST",
        headers: { authorization: `Bearer ${other.accessJwt}`, "content-type": "image/jpeg" },
        body: mediaFile("jpeg", 1000),
      }),
    );
    const res = await create({
      record: post("x", { embed: { $type: "app.bsky.embed.images", images: [{ image: blob, alt: "" }] } }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("BlobNotFound");
  });
});
