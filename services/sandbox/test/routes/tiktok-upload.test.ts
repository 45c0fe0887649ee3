import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { mediaBytes, postJson, type Sandbox, startSandbox, tiktokTokens } from "../harness.ts";

const MB = 1024 * 1024;
let sandbox: Sandbox;
let token: string;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  token = (await tiktokTokens(sandbox.url)).access_token;
});

async function initUpload(videoSize: number, chunkSize: number, count: number) {
  const res = await fetch(
    `${sandbox.url}/v2/post/publish/video/init/`,
    postJson(
      {
        post_info: { title: "t", privacy_level: "SELF_ONLY" },
        source_info: {
          source: "FILE_UPLOAD",
          video_size: videoSize,
          chunk_size: chunkSize,
          total_chunk_count: count,
        },
      },
      token,
    ),
  );
  return (await json(res)).data as { publish_id: string; upload_url: string };
}

const putChunk = (url: string, bytes: Buffer, first: number, total: number, type = "video/mp4") =>
  fetch(url, {
    method: "PUT",
    headers: { "content-type": type, "content-range": `bytes ${first}-${first + bytes.length - 1}/${total}` },
    body: bytes,
  });

describe("PUT {upload_url}: success", () => {
  test("two chunks in order: 206 then 201, and the sandbox holds the file's hash", async () => {
    const size = 11 * MB + 123;
    const { bytes, sha256 } = mediaBytes(size, 9);
    const { upload_url, publish_id } = await initUpload(size, 5 * MB, 2);
    expect((await putChunk(upload_url, bytes.subarray(0, 5 * MB), 0, size)).status).toBe(206);
    expect((await putChunk(upload_url, bytes.subarray(5 * MB), 5 * MB, size)).status).toBe(201);
    const { posts } = await json(await fetch(`${sandbox.url}/_sandbox/tiktok/posts`));
    expect(posts[0]).toMatchObject({
      publishId: publish_id,
      media: [{ bytes: size, sha256, declaredBytes: size }],
    });
  });

  test("a small file goes in one chunk and answers 201", async () => {
    const { bytes } = mediaBytes(1000);
    const { upload_url } = await initUpload(1000, 1000, 1);
    expect((await putChunk(upload_url, bytes, 0, 1000)).status).toBe(201);
  });
});

describe("PUT {upload_url}: errors", () => {
  test("a chunk out of order is refused and takes no bytes", async () => {
    const size = 10 * MB;
    const { bytes } = mediaBytes(size);
    const { upload_url } = await initUpload(size, 5 * MB, 2);
    const res = await putChunk(upload_url, bytes.subarray(5 * MB), 5 * MB, size);
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toContain("bytes 0-5242879");
    expect((await putChunk(upload_url, bytes.subarray(0, 5 * MB), 0, size)).status).toBe(206);
  });

  test("a total that is not the declared video_size, or a non-video type, is refused", async () => {
    const { bytes } = mediaBytes(1000);
    const { upload_url } = await initUpload(1000, 1000, 1);
    expect((await putChunk(upload_url, bytes, 0, 1001)).status).toBe(400);
    expect((await putChunk(upload_url, bytes, 0, 1000, "image/png")).status).toBe(400);
  });

  test("a chunk after the last one is refused", async () => {
    const { bytes } = mediaBytes(1000);
    const { upload_url } = await initUpload(1000, 1000, 1);
    expect((await putChunk(upload_url, bytes, 0, 1000)).status).toBe(201);
    expect((await putChunk(upload_url, bytes, 0, 1000)).status).toBe(400);
  });
});

describe("PUT {upload_url}: security", () => {
  test("a wrong upload_token is 403 and an unknown upload_id 404", async () => {
    const { bytes } = mediaBytes(1000);
    const { upload_url } = await initUpload(1000, 1000, 1);
    const forged = new URL(upload_url);
    forged.searchParams.set("upload_token", "guess");
    expect((await putChunk(forged.toString(), bytes, 0, 1000)).status).toBe(403);
    forged.searchParams.set("upload_id", "v_pub_file~v2-1.0");
    expect((await putChunk(forged.toString(), bytes, 0, 1000)).status).toBe(404);
  });
});
