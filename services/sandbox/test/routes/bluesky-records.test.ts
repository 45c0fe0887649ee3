import { json } from "@app/testkit";
import { AtpAgent } from "@atproto/api";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_BLUESKY } from "../../src/demo.ts";
import { mediaBytes, postJson, type Sandbox, startSandbox } from "../harness.ts";

let sandbox: Sandbox;
let accessJwt: string;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  const res = await fetch(
    `${sandbox.url}/xrpc/com.atproto.server.createSession`,
    postJson({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword }),
  );
  accessJwt = (await json(res)).accessJwt;
});

const RKEY = "3lbsandbox22a";
const post = (text: string, extra: Record<string, unknown> = {}) => ({
  $type: "app.bsky.feed.post",
  text,
  createdAt: "2026-11-22T10:00:00.000Z",
  ...extra,
});
const create = (body: Record<string, unknown>, token = accessJwt) =>
  fetch(
    `${sandbox.url}/xrpc/com.atproto.repo.createRecord`,
    postJson({ repo: DEMO_BLUESKY.did, collection: "app.bsky.feed.post", ...body }, token),
  );
const uploadBlob = (bytes: Buffer, type: string, token = accessJwt) =>
  fetch(`${sandbox.url}/xrpc/com.atproto.repo.uploadBlob`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": type },
    body: bytes,
  });

describe("com.atproto.repo.createRecord, putRecord, getRecord and uploadBlob: success", () => {
  test("the official client posts, and the record reads back with getRecord", async () => {
    const agent = new AtpAgent({ service: sandbox.url });
    await agent.login({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword });
    const created = await agent.post({ text: "Hello from the sandbox 👋" });
    expect(created.uri).toMatch(
      new RegExp(`^at://${DEMO_BLUESKY.did}/app\\.bsky\\.feed\\.post/[a-z2-7]{13}$`),
    );
    const rkey = created.uri.split("/").pop() ?? "";
    const read = await agent.com.atproto.repo.getRecord({
      repo: DEMO_BLUESKY.did,
      collection: "app.bsky.feed.post",
      rkey,
    });
    expect(read.data).toMatchObject({
      uri: created.uri,
      cid: created.cid,
      value: { text: "Hello from the sandbox 👋" },
    });
  });

  test("a caller-chosen rkey names the record", async () => {
    const res = await create({ rkey: RKEY, record: post("exactly once") });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      uri: `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/${RKEY}`,
      cid: expect.stringMatching(/^b[a-z2-7]+$/),
      validationStatus: "valid",
    });
  });

  test("an uploaded image is embedded, and the sandbox lists the blob's size and hash", async () => {
    const image = mediaBytes(50_000, 8);
    const { blob } = await json(await uploadBlob(image.bytes, "image/jpeg"));
    expect(blob).toEqual({
      $type: "blob",
      ref: { $link: expect.stringMatching(/^bafkrei[a-z2-7]+$/) },
      mimeType: "image/jpeg",
      size: 50_000,
    });
    const res = await create({
      record: post("with a photo", {
        embed: { $type: "app.bsky.embed.images", images: [{ image: blob, alt: "a photo" }] },
      }),
    });
    expect(res.status).toBe(200);
    const listed = await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`));
    expect(listed.blobs).toEqual([
      expect.objectContaining({ size: 50_000, sha256: image.sha256, mimeType: "image/jpeg" }),
    ]);
    expect(listed.records[0].value.embed.images[0].image.ref.$link).toBe(blob.ref.$link);
  });

  test("a video is embedded as an mp4 blob", async () => {
    const { blob } = await json(await uploadBlob(mediaBytes(2_000_000).bytes, "video/mp4"));
    const res = await create({
      record: post("a clip", { embed: { $type: "app.bsky.embed.video", video: blob } }),
    });
    expect(res.status).toBe(200);
  });

  test("putRecord with swapRecord null creates once and refuses when the record exists", async () => {
    const put = () =>
      fetch(
        `${sandbox.url}/xrpc/com.atproto.repo.putRecord`,
        postJson(
          {
            repo: DEMO_BLUESKY.did,
            collection: "app.bsky.feed.post",
            rkey: RKEY,
            swapRecord: null,
            record: post("put"),
          },
          accessJwt,
        ),
      );
    expect((await put()).status).toBe(200);
    const again = await put();
    expect(again.status).toBe(400);
    expect((await json(again)).error).toBe("InvalidSwap");
  });
});

describe("com.atproto.repo.createRecord, putRecord, getRecord and uploadBlob: errors", () => {
  test("creating the same rkey twice is refused with RecordAlreadyExists and keeps the first record", async () => {
    expect((await create({ rkey: RKEY, record: post("first") })).status).toBe(200);
    const again = await create({ rkey: RKEY, record: post("second") });
    expect(again.status).toBe(400);
    expect((await json(again)).error).toBe("RecordAlreadyExists");
    const read = await fetch(
      `${sandbox.url}/xrpc/com.atproto.repo.getRecord?repo=${DEMO_BLUESKY.did}&collection=app.bsky.feed.post&rkey=${RKEY}`,
    );
    expect((await json(read)).value.text).toBe("first");
  });

  test.for<[string, Record<string, unknown>, string]>([
    ["text over 300 graphemes", { record: post("a".repeat(301)) }, "300 graphemes"],
    ["a missing createdAt", { record: { $type: "app.bsky.feed.post", text: "x" } }, "createdAt"],
    ["a record key that is not a TID", { rkey: "my-post", record: post("x") }, "TID"],
    [
      "a blob that was never uploaded",
      {
        record: post("x", {
          embed: {
            $type: "app.bsky.embed.images",
            images: [
              {
                alt: "",
                image: { $type: "blob", ref: { $link: "bafkreinope" }, mimeType: "image/jpeg", size: 1 },
              },
            ],
          },
        }),
      },
      "Could not find blob",
    ],
    [
      "five images",
      { record: post("x", { embed: { $type: "app.bsky.embed.images", images: [1, 2, 3, 4, 5] } }) },
      "1 to 4 images",
    ],
  ])("%s is a 400 with an XRPC error", async ([, body, words]) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    const answer = await json(res);
    expect(answer.message).toContain(words);
    expect(Object.keys(answer).sort()).toEqual(["error", "message"]);
  });

  test("an image over 1 MB cannot be embedded; a blob over the PDS limit is 413", async () => {
    const { blob } = await json(await uploadBlob(mediaBytes(1_000_001).bytes, "image/jpeg"));
    const res = await create({
      record: post("big", { embed: { $type: "app.bsky.embed.images", images: [{ image: blob, alt: "" }] } }),
    });
    expect(res.status).toBe(400);
    const small = await startSandbox((settings) => {
      settings.bluesky.blobLimitBytes = 1000;
    });
    const session = await json(
      await fetch(
        `${small.url}/xrpc/com.atproto.server.createSession`,
        postJson({ identifier: DEMO_BLUESKY.handle, password: DEMO_BLUESKY.appPassword }),
      ),
    );
    const tooBig = await fetch(`${small.url}/xrpc/com.atproto.repo.uploadBlob`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.accessJwt}`, "content-type": "image/jpeg" },
      body: mediaBytes(1001).bytes,
    });
    expect(tooBig.status).toBe(413);
    expect((await json(tooBig)).error).toBe("PayloadTooLarge");
    await small.close();
  });

  test("getRecord of a missing record is RecordNotFound", async () => {
    const res = await fetch(
      `${sandbox.url}/xrpc/com.atproto.repo.getRecord?repo=${DEMO_BLUESKY.did}&collection=app.bsky.feed.post&rkey=${RKEY}`,
    );
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("RecordNotFound");
  });
});

describe("com.atproto.repo.createRecord, putRecord, getRecord and uploadBlob: security", () => {
  test("writing without a token is 401 and into another repo is refused", async () => {
    expect((await create({ record: post("x") }, "")).status).toBe(401);
    const other = await fetch(
      `${sandbox.url}/xrpc/com.atproto.repo.createRecord`,
      postJson(
        { repo: "did:plc:someoneelseaaaaaaaaaaaaa", collection: "app.bsky.feed.post", record: post("x") },
        accessJwt,
      ),
    );
    expect(other.status).toBe(400);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`))).records).toEqual([]);
  });

  test("uploadBlob without a token stores nothing", async () => {
    expect((await uploadBlob(mediaBytes(10).bytes, "image/jpeg", "")).status).toBe(401);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`))).blobs).toEqual([]);
  });
});
