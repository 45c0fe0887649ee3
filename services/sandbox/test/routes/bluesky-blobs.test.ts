import { createHash } from "node:crypto";
import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { sniffMimeType } from "../../src/bluesky/blob-sniff.ts";
import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED } from "../../src/demo.ts";
import {
  blueskySession,
  mediaBytes,
  mediaFile,
  postJson,
  type SandboxNetwork,
  startSandboxNetwork,
} from "../harness.ts";

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

const uploadBlob = (bytes: Buffer, type: string | undefined, token = accessJwt, service = sandbox.url) =>
  fetch(`${service}/xrpc/com.atproto.repo.uploadBlob`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, ...(type ? { "content-type": type } : {}) },
    body: bytes,
  });
const getBlob = (did: string, cid: string, service = sandbox.url) =>
  fetch(`${service}/xrpc/com.atproto.sync.getBlob?did=${did}&cid=${cid}`);
const postWithImage = (blob: unknown) =>
  fetch(
    `${sandbox.url}/xrpc/com.atproto.repo.createRecord`,
    postJson(
      {
        repo: DEMO_BLUESKY.did,
        collection: "app.bsky.feed.post",
        record: {
          text: "with a photo",
          createdAt: "2026-11-22T10:00:00.000Z",
          embed: { $type: "app.bsky.embed.images", images: [{ image: blob, alt: "" }] },
        },
      },
      accessJwt,
    ),
  );

describe("the type of a blob, sniffed from its bytes", () => {
  test.for<[string, Buffer, string | undefined]>([
    ["JPEG", mediaFile("jpeg", 64), "image/jpeg"],
    ["PNG", mediaFile("png", 64), "image/png"],
    ["GIF", mediaFile("gif", 64), "image/gif"],
    ["WebP", mediaFile("webp", 64), "image/webp"],
    ["MP4 (ftyp isom)", mediaFile("mp4", 64), "video/mp4"],
    ["QuickTime (ftyp qt)", mediaFile("mov", 64), "video/quicktime"],
    ["bytes of no known format", mediaBytes(64, 2).bytes, undefined],
  ])("%s", ([, bytes, type]) => {
    expect(sniffMimeType(bytes)).toBe(type);
  });
});

describe("com.atproto.repo.uploadBlob and com.atproto.sync.getBlob: success", () => {
  test("the blob ref carries the type sniffed from the bytes, not the declared one", async () => {
    const res = await uploadBlob(mediaFile("png", 5000), "image/jpeg");
    expect(res.status).toBe(200);
    const { blob } = await json(res);
    expect(blob).toEqual({
      $type: "blob",
      ref: { $link: expect.stringMatching(/^bafkrei[a-z2-7]+$/) },
      mimeType: "image/png",
      size: 5000,
    });
  });

  test("bytes no signature matches keep the declared type", async () => {
    const { blob } = await json(await uploadBlob(mediaBytes(300, 3).bytes, "application/x-sandbox"));
    expect(blob.mimeType).toBe("application/x-sandbox");
  });

  test("a blob a record references is served back byte for byte, with the PDS's safety headers", async () => {
    const bytes = mediaFile("jpeg", 70_000, 5);
    const { blob } = await json(await uploadBlob(bytes, "image/jpeg"));
    expect((await postWithImage(blob)).status).toBe(200);
    const res = await getBlob(DEMO_BLUESKY.did, blob.ref.$link);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/jpeg");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    const served = Buffer.from(await res.arrayBuffer());
    expect(createHash("sha256").update(served).digest("hex")).toBe(
      createHash("sha256").update(bytes).digest("hex"),
    );
  });

  test("the second PDS takes blobs of its own accounts", async () => {
    const session = await blueskySession(sandbox.pds2Url, DEMO_BLUESKY_SELF_HOSTED);
    const res = await uploadBlob(mediaFile("webp", 4000), "image/webp", session.accessJwt, sandbox.pds2Url);
    expect(res.status).toBe(200);
    const listed = await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`));
    expect(listed.blobs).toEqual([
      expect.objectContaining({ did: DEMO_BLUESKY_SELF_HOSTED.did, mimeType: "image/webp" }),
    ]);
    expect(listed.blobs[0]).not.toHaveProperty("bytes");
  });
});

describe("com.atproto.repo.uploadBlob and com.atproto.sync.getBlob: errors", () => {
  test("an upload no record references is not served (Blob not found), as a PDS keeps it temporary", async () => {
    const { blob } = await json(await uploadBlob(mediaFile("jpeg", 1000), "image/jpeg"));
    const res = await getBlob(DEMO_BLUESKY.did, blob.ref.$link);
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: "InvalidRequest", message: "Blob not found" });
  });

  test("getBlob of a DID this PDS does not host is RepoNotFound; a bad CID is InvalidRequest", async () => {
    const other = await getBlob(
      DEMO_BLUESKY_SELF_HOSTED.did,
      "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy",
    );
    expect(other.status).toBe(400);
    expect((await json(other)).error).toBe("RepoNotFound");
    const bad = await getBlob(DEMO_BLUESKY.did, "not-a-cid");
    expect(bad.status).toBe(400);
    expect(await json(bad)).toEqual({ error: "InvalidRequest", message: "cid must be a cid string" });
  });

  test("an upload without a Content-Type is refused; an empty one too", async () => {
    const untyped = await uploadBlob(mediaFile("jpeg", 100), undefined);
    expect(untyped.status).toBe(400);
    expect((await json(untyped)).message).toBe("Request encoding (Content-Type) required but not provided");
    expect((await uploadBlob(Buffer.alloc(0), "image/jpeg")).status).toBe(400);
  });

  test("a blob over the PDS's upload limit is 413 PayloadTooLarge", async () => {
    const small = await startSandboxNetwork((settings) => {
      settings.bluesky.blobLimitBytes = 1000;
    });
    try {
      const session = await blueskySession(small.url, DEMO_BLUESKY);
      const tooBig = await uploadBlob(mediaFile("jpeg", 1001), "image/jpeg", session.accessJwt, small.url);
      expect(tooBig.status).toBe(413);
      expect((await json(tooBig)).error).toBe("PayloadTooLarge");
    } finally {
      await small.close();
    }
  });
});

describe("com.atproto.repo.uploadBlob: security", () => {
  test("uploadBlob without a token stores nothing", async () => {
    expect((await uploadBlob(mediaFile("jpeg", 10), "image/jpeg", "")).status).toBe(401);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/bluesky/records`))).blobs).toEqual([]);
  });

  test("a blob of one account is not served under another's DID", async () => {
    const bytes = mediaFile("jpeg", 2000, 9);
    const { blob } = await json(await uploadBlob(bytes, "image/jpeg"));
    expect((await postWithImage(blob)).status).toBe(200);
    const elsewhere = await getBlob(DEMO_BLUESKY_SELF_HOSTED.did, blob.ref.$link, sandbox.pds2Url);
    expect(elsewhere.status).toBe(400);
    expect((await json(elsewhere)).message).toBe("Blob not found");
  });
});
