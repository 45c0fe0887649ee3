import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
  BLOB_MEMORY_BUDGET_BYTES,
  blobBudgetBytes,
  heldBlobBytes,
  makeRoomForBlob,
  TEMP_BLOB_TTL_MS,
} from "../../src/bluesky/blob-retention.ts";
import { blobKey, StoredBlob } from "../../src/bluesky/state.ts";
import { DEMO_BLUESKY } from "../../src/demo.ts";
import {
  blueskySession,
  manualClock,
  mediaFile,
  postJson,
  type SandboxNetwork,
  startSandboxNetwork,
} from "../harness.ts";

const clock = manualClock();
let sandbox: SandboxNetwork;
let accessJwt: string;
beforeAll(async () => {
  sandbox = await startSandboxNetwork(() => {}, { clock });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  accessJwt = (await blueskySession(sandbox.url, DEMO_BLUESKY)).accessJwt;
});

const MINUTE = 60_000;
type BlobRef = { ref: { $link: string }; mimeType: string; size: number };
const upload = async (bytes: Buffer): Promise<BlobRef> => {
  const res = await fetch(`${sandbox.url}/xrpc/com.atproto.repo.uploadBlob`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessJwt}`, "content-type": "image/jpeg" },
    body: bytes,
  });
  expect(res.status).toBe(200);
  return (await json(res)).blob;
};
const call = (name: string, body: Record<string, unknown>) =>
  fetch(`${sandbox.url}/xrpc/${name}`, postJson({ repo: DEMO_BLUESKY.did, ...body }, accessJwt));
const photoPost = (rkey: string, blob: BlobRef, name = "com.atproto.repo.createRecord") =>
  call(name, {
    collection: "app.bsky.feed.post",
    rkey,
    record: {
      text: "with a photo",
      createdAt: "2026-11-22T10:00:00.000Z",
      embed: { $type: "app.bsky.embed.images", images: [{ image: blob, alt: "" }] },
    },
  });
const deletePost = (rkey: string) =>
  call("com.atproto.repo.deleteRecord", { collection: "app.bsky.feed.post", rkey });
const getBlob = (blob: BlobRef) =>
  fetch(`${sandbox.url}/xrpc/com.atproto.sync.getBlob?did=${DEMO_BLUESKY.did}&cid=${blob.ref.$link}`);
/** The blobs the twin holds, measured through its state: their CIDs and the bytes they keep in memory. */
const held = () => {
  const blobs = [...sandbox.context.bluesky.blobs.values()];
  return {
    cids: blobs.map((blob) => blob.cid).sort(),
    bytes: blobs.reduce((total, blob) => total + blob.bytes.length, 0),
  };
};
const cidsOf = (...blobs: BlobRef[]) => blobs.map((blob) => blob.ref.$link).sort();

describe("blobs the PDS twin keeps, as a PDS keeps them", () => {
  test("an upload no record references is dropped once an hour has passed; a referenced one stays and is served", async () => {
    const temporary = await upload(mediaFile("jpeg", 90_000, 1));
    const posted = await upload(mediaFile("jpeg", 80_000, 2));
    expect((await photoPost("3lbsandbox22a", posted)).status).toBe(200);
    clock.advance(TEMP_BLOB_TTL_MS + MINUTE);
    const later = await upload(mediaFile("jpeg", 70_000, 3));
    expect(held()).toEqual({ cids: cidsOf(posted, later), bytes: 150_000 });
    const tooLate = await photoPost("3lbsandbox22b", temporary);
    expect(tooLate.status).toBe(400);
    expect((await json(tooLate)).error).toBe("BlobNotFound");
    const served = await getBlob(posted);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(mediaFile("jpeg", 80_000, 2))).toBe(true);
  });

  test("within the hour an upload can still be referenced, and a record write drops what has expired", async () => {
    const early = await upload(mediaFile("jpeg", 30_000, 4));
    clock.advance(TEMP_BLOB_TTL_MS - MINUTE);
    const recent = await upload(mediaFile("jpeg", 20_000, 5));
    expect((await photoPost("3lbsandbox22a", early)).status).toBe(200);
    clock.advance(2 * MINUTE);
    expect((await photoPost("3lbsandbox22b", recent)).status).toBe(200);
    const orphan = await upload(mediaFile("jpeg", 10_000, 6));
    clock.advance(TEMP_BLOB_TTL_MS + MINUTE);
    accessJwt = (await blueskySession(sandbox.url, DEMO_BLUESKY)).accessJwt;
    expect(
      (
        await call("com.atproto.repo.createRecord", {
          collection: "app.bsky.feed.post",
          record: { text: "no media", createdAt: "2026-11-22T10:00:00.000Z" },
        })
      ).status,
    ).toBe(200);
    expect(held().cids).toEqual(cidsOf(early, recent));
    expect(held().cids).not.toContain(orphan.ref.$link);
  });

  test("deleting the last record that references a blob deletes the blob; replacing a record's image drops the old one", async () => {
    const shared = await upload(mediaFile("jpeg", 40_000, 7));
    expect((await photoPost("3lbsandbox22a", shared)).status).toBe(200);
    expect((await photoPost("3lbsandbox22b", shared)).status).toBe(200);
    expect((await deletePost("3lbsandbox22a")).status).toBe(200);
    expect((await getBlob(shared)).status).toBe(200);
    expect((await deletePost("3lbsandbox22b")).status).toBe(200);
    expect(held()).toEqual({ cids: [], bytes: 0 });
    expect((await getBlob(shared)).status).toBe(400);

    const first = await upload(mediaFile("jpeg", 40_000, 8));
    const second = await upload(mediaFile("jpeg", 50_000, 9));
    expect((await photoPost("3lbsandbox22c", first)).status).toBe(200);
    expect((await photoPost("3lbsandbox22c", second, "com.atproto.repo.putRecord")).status).toBe(200);
    expect(held()).toEqual({ cids: cidsOf(second), bytes: 50_000 });
  });
});

describe("the memory the twin's blobs may hold, through uploadBlob", () => {
  test("an upload that cannot fit beside the blobs records reference is 413 PayloadTooLarge, and one that fits is kept", async () => {
    // A posted blob the state counts as all but 1000 bytes of the budget (its bytes are not allocated here).
    const { blobs, records } = sandbox.context.bluesky;
    const cid = "bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy";
    const size = BLOB_MEMORY_BUDGET_BYTES - 1000;
    const now = clock.now().toISOString();
    blobs.set(
      blobKey(DEMO_BLUESKY.did, cid),
      new StoredBlob(cid, DEMO_BLUESKY.did, "image/jpeg", size, "0".repeat(64), now, Buffer.alloc(0)),
    );
    const uri = `at://${DEMO_BLUESKY.did}/app.bsky.feed.post/3lbsandbox22a`;
    records.set(uri, {
      uri,
      cid: "bafyreiclp443lavogvhj3d2ob2cxbfuscni2k5jk7bebjzg7khl3esabwq",
      did: DEMO_BLUESKY.did,
      collection: "app.bsky.feed.post",
      rkey: "3lbsandbox22a",
      value: {},
      validationStatus: "valid",
      blobs: [cid],
      createdAt: now,
      updatedAt: now,
    });
    const refused = await fetch(`${sandbox.url}/xrpc/com.atproto.repo.uploadBlob`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessJwt}`, "content-type": "image/jpeg" },
      body: mediaFile("jpeg", 2000, 10),
    });
    expect(refused.status).toBe(413);
    expect(await json(refused)).toMatchObject({
      error: "PayloadTooLarge",
      message: expect.stringContaining("Blob storage is full"),
    });
    const kept = await upload(mediaFile("jpeg", 500, 11));
    expect(held().cids).toEqual([cid, kept.ref.$link].sort());
  });
});

describe("the memory the twin's blobs may hold", () => {
  const T0 = Date.parse("2026-11-22T10:00:00.000Z");
  const blob = (cid: string, size: number, minutesAfter: number) =>
    new StoredBlob(
      cid,
      DEMO_BLUESKY.did,
      "image/jpeg",
      size,
      "0".repeat(64),
      new Date(T0 + minutesAfter * MINUTE).toISOString(),
      Buffer.alloc(size),
    );
  const store = (...blobs: StoredBlob[]) => new Map(blobs.map((item) => [blobKey(item.did, item.cid), item]));
  const limits = (minutesAfter: number, budgetBytes: number) => ({
    now: T0 + minutesAfter * MINUTE,
    tempTtlMs: TEMP_BLOB_TTL_MS,
    budgetBytes,
  });

  test("temporary blobs give way to a new upload, oldest first, so the bytes held stay within the budget", () => {
    const blobs = store(blob("old", 400, 0), blob("mid", 400, 1), blob("new", 400, 2));
    expect(makeRoomForBlob(blobs, new Set(), 500, limits(3, 1500))).toBe(true);
    expect([...blobs.keys()]).toEqual([blobKey(DEMO_BLUESKY.did, "mid"), blobKey(DEMO_BLUESKY.did, "new")]);
    expect(heldBlobBytes(blobs.values()) + 500).toBeLessThanOrEqual(1500);
  });

  test("referenced blobs are never dropped for room: an upload that cannot fit beside them is refused", () => {
    const blobs = store(blob("posted", 1000, 0), blob("temp", 300, 1));
    const referenced = new Set([blobKey(DEMO_BLUESKY.did, "posted")]);
    expect(makeRoomForBlob(blobs, referenced, 600, limits(2, 1500))).toBe(false);
    expect(blobs.has(blobKey(DEMO_BLUESKY.did, "posted"))).toBe(true);
    expect(makeRoomForBlob(blobs, referenced, 500, limits(2, 1500))).toBe(true);
    expect([...blobs.keys()]).toEqual([blobKey(DEMO_BLUESKY.did, "posted")]);
  });

  test("expired temporary blobs are dropped even when there is room", () => {
    const blobs = store(blob("expired", 10, 0), blob("fresh", 10, 30));
    expect(makeRoomForBlob(blobs, new Set(), 10, limits(61, 1_000_000))).toBe(true);
    expect([...blobs.keys()]).toEqual([blobKey(DEMO_BLUESKY.did, "fresh")]);
  });

  test("the budget is 256 MiB, or one upload at the limit when that is more", () => {
    expect(BLOB_MEMORY_BUDGET_BYTES).toBe(256 * 1024 * 1024);
    expect(blobBudgetBytes(100_000_000)).toBe(BLOB_MEMORY_BUDGET_BYTES);
    expect(blobBudgetBytes(400_000_000)).toBe(400_000_000);
  });
});
