import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { googleTokens, mediaBytes, type Sandbox, startSandbox } from "../harness.ts";

const KIB256 = 256 * 1024;
let sandbox: Sandbox;
let accessToken: string;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  accessToken = (await googleTokens(sandbox.url)).access_token;
});

async function openSession(size: number | null): Promise<string> {
  const res = await fetch(
    `${sandbox.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`,
    {
      method: "POST",
      headers: {
        authorization: `Bearer ${accessToken}`,
        "content-type": "application/json; charset=UTF-8",
        ...(size === null ? {} : { "x-upload-content-length": String(size) }),
        "x-upload-content-type": "video/mp4",
      },
      body: JSON.stringify({
        snippet: { title: "Chunked", description: "d", tags: ["a", "b"] },
        status: { privacyStatus: "private" },
      }),
    },
  );
  expect(res.status).toBe(200);
  return res.headers.get("location") ?? "";
}

const put = (session: string, body: Buffer | null, range?: string) =>
  fetch(session, {
    method: "PUT",
    headers: { "content-type": "video/mp4", ...(range ? { "content-range": range } : {}) },
    body: body ?? new Uint8Array(0),
  });

describe("PUT to a YouTube upload session: success", () => {
  test("chunks of 256 KiB multiples get 308 with Range, the last one 200 with the video resource", async () => {
    const size = 2 * KIB256 + 1000;
    const { bytes, sha256 } = mediaBytes(size);
    const session = await openSession(size);
    const first = await put(session, bytes.subarray(0, 2 * KIB256), `bytes 0-${2 * KIB256 - 1}/${size}`);
    expect(first.status).toBe(308);
    expect(first.headers.get("range")).toBe(`bytes=0-${2 * KIB256 - 1}`);
    const last = await put(session, bytes.subarray(2 * KIB256), `bytes ${2 * KIB256}-${size - 1}/${size}`);
    expect(last.status).toBe(200);
    const video = await json(last);
    expect(video).toMatchObject({
      kind: "youtube#video",
      id: expect.stringMatching(/^[\w-]{11}$/),
      snippet: { title: "Chunked", description: "d", tags: ["a", "b"] },
      status: { uploadStatus: "uploaded", privacyStatus: "private" },
    });
    const published = await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`));
    expect(published.videos).toEqual([
      expect.objectContaining({ id: video.id, bytes: size, sha256, title: "Chunked" }),
    ]);
  });

  test("a status query answers how many bytes the session holds, and resuming from there completes it", async () => {
    const size = KIB256 + 10;
    const { bytes, sha256 } = mediaBytes(size, 7);
    const session = await openSession(null);
    const empty = await put(session, null, `bytes */${size}`);
    expect(empty.status).toBe(308);
    expect(empty.headers.get("range")).toBeNull();
    await put(session, bytes.subarray(0, KIB256), `bytes 0-${KIB256 - 1}/*`);
    const probe = await put(session, null, `bytes */${size}`);
    expect(probe.status).toBe(308);
    expect(probe.headers.get("range")).toBe(`bytes=0-${KIB256 - 1}`);
    expect((await put(session, bytes.subarray(KIB256), `bytes ${KIB256}-${size - 1}/${size}`)).status).toBe(
      200,
    );
    const published = await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`));
    expect(published.videos[0]).toMatchObject({ bytes: size, sha256 });
  });

  test("the whole file in one PUT without Content-Range makes the video", async () => {
    const { bytes } = mediaBytes(5000);
    const res = await put(await openSession(5000), bytes);
    expect(res.status).toBe(200);
  });

  test("a completed session answers the same video again and never makes a second one", async () => {
    const { bytes } = mediaBytes(3000);
    const session = await openSession(3000);
    const first = await json(await put(session, bytes, "bytes 0-2999/3000"));
    const retried = await put(session, bytes, "bytes 0-2999/3000");
    expect(retried.status).toBe(200);
    expect((await json(retried)).id).toBe(first.id);
    expect((await put(session, null, "bytes */3000")).status).toBe(200);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos).toHaveLength(1);
  });
});

describe("PUT to a YouTube upload session: errors", () => {
  test("a chunk that is not a multiple of 256 KiB (and not the last) is a 400", async () => {
    const { bytes } = mediaBytes(KIB256 + 100);
    const res = await put(await openSession(KIB256 * 3), bytes, `bytes 0-${KIB256 + 99}/${KIB256 * 3}`);
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain("multiple of 262144");
  });

  test("a chunk that does not start where the session stands is a 400 that says where to resume", async () => {
    const { bytes } = mediaBytes(KIB256);
    const res = await put(
      await openSession(KIB256 * 3),
      bytes,
      `bytes ${KIB256}-${2 * KIB256 - 1}/${KIB256 * 3}`,
    );
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain("holds 0 bytes");
  });

  test("a total that differs from X-Upload-Content-Length is a 400", async () => {
    const { bytes } = mediaBytes(1000);
    const res = await put(await openSession(2000), bytes, "bytes 0-999/1000");
    expect(res.status).toBe(400);
  });

  test("a malformed Content-Range is a 400, an unknown session a 404", async () => {
    const session = await openSession(100);
    expect((await put(session, mediaBytes(100).bytes, "bytes=0-99/100")).status).toBe(400);
    const unknown = await put(`${sandbox.url}/upload/youtube/v3/videos?upload_id=nope`, null, "bytes */100");
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe(404);
  });

  test("an injected 503 on a chunk leaves the session as it was, so the client can resume", async () => {
    const size = KIB256 + 5;
    const { bytes, sha256 } = mediaBytes(size, 3);
    const session = await openSession(size);
    await fetch(`${sandbox.url}/_sandbox/faults`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ operation: "youtube.videos.upload", status: 503 }),
    });
    const failed = await put(session, bytes, `bytes 0-${size - 1}/${size}`);
    expect(failed.status).toBe(503);
    expect((await json(failed)).error.errors[0].reason).toBe("backendError");
    expect((await put(session, null, `bytes */${size}`)).status).toBe(308);
    expect((await put(session, bytes, `bytes 0-${size - 1}/${size}`)).status).toBe(200);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos[0].sha256).toBe(sha256);
  });
});

describe("PUT to a YouTube upload session: security", () => {
  test("an expired session is 410 and takes no bytes", async () => {
    const session = await openSession(100);
    for (const value of sandbox.context.google.sessions.values()) value.expiresAt = new Date(0);
    const res = await put(session, mediaBytes(100).bytes, "bytes 0-99/100");
    expect(res.status).toBe(410);
    expect((await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos).toEqual([]);
  });

  test("the request log redacts the session's upload_id and the bearer token", async () => {
    const session = await openSession(100);
    await put(session, null, "bytes */100");
    const { requests } = await json(await fetch(`${sandbox.url}/_sandbox/requests?platform=youtube`));
    const uploadId = new URL(session).searchParams.get("upload_id") ?? "";
    expect(JSON.stringify(requests)).not.toContain(uploadId);
    expect(JSON.stringify(requests)).not.toContain(accessToken);
    expect(requests[0].authorization).toMatch(/^Bearer \[redacted\] #[0-9a-f]{8}$/);
    expect(requests[1]).toMatchObject({
      operation: "youtube.videos.upload",
      status: 308,
      contentRange: "bytes */100",
    });
  });
});
