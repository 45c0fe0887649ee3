import { request } from "node:http";
import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { googleTokens, mediaBytes, type Sandbox, startSandbox } from "../harness.ts";

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

const url = (query = "uploadType=media&part=snippet,status") =>
  `${sandbox.url}/upload/youtube/v3/videos?${query}`;

function insert(body: Buffer, headers: Record<string, string> = {}, query?: string) {
  return fetch(url(query), {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, "content-type": "video/mp4", ...headers },
    body,
  });
}

async function sandboxVideos() {
  return (await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos as Record<
    string,
    unknown
  >[];
}

describe("POST /upload/youtube/v3/videos?uploadType=media: success", () => {
  test("the video alone makes a private video with default metadata", async () => {
    const { bytes, sha256 } = mediaBytes(50_000, 5);
    const res = await insert(bytes);
    expect(res.status).toBe(200);
    const video = await json(res);
    expect(video).toMatchObject({
      kind: "youtube#video",
      snippet: { categoryId: "22", title: expect.any(String) },
      status: { uploadStatus: "uploaded", privacyStatus: "private" },
    });
    expect(await sandboxVideos()).toEqual([
      expect.objectContaining({ id: video.id, uploadType: "media", bytes: 50_000, sha256 }),
    ]);
  });

  test("a chunked body (no Content-Length) streams in the same way", async () => {
    const { bytes, sha256 } = mediaBytes(100_000, 9);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url(), {
        method: "POST",
        headers: {
          authorization: `Bearer ${accessToken}`,
          "content-type": "application/octet-stream",
          "transfer-encoding": "chunked",
        },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      for (let offset = 0; offset < bytes.length; offset += 10_000)
        req.write(bytes.subarray(offset, offset + 10_000));
      req.end();
    });
    expect(status).toBe(200);
    expect(await sandboxVideos()).toEqual([expect.objectContaining({ bytes: 100_000, sha256 })]);
  });
});

describe("POST /upload/youtube/v3/videos?uploadType=media: errors", () => {
  test("an image is 400 badRequest as Google words it", async () => {
    const res = await insert(mediaBytes(10).bytes, { "content-type": "image/jpeg" });
    expect(res.status).toBe(400);
    expect((await json(res)).error.message).toBe(
      "Media type 'image/jpeg' is not supported. Valid media types: [video/*, application/octet-stream]",
    );
    expect(await sandboxVideos()).toEqual([]);
  });

  test("an empty body is 400 mediaBodyRequired", async () => {
    const res = await insert(Buffer.alloc(0));
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0].reason).toBe("mediaBodyRequired");
  });

  test("no part is 400 required", async () => {
    const res = await insert(mediaBytes(10).bytes, {}, "uploadType=media");
    expect(res.status).toBe(400);
    expect((await json(res)).error.errors[0]).toMatchObject({ reason: "required", location: "part" });
  });
});

describe("POST /upload/youtube/v3/videos?uploadType=media: security", () => {
  test("an unknown token is 401 authError and nothing is made", async () => {
    const res = await insert(mediaBytes(10).bytes, { authorization: "Bearer ya29.made-up" });
    expect(res.status).toBe(401);
    expect(await sandboxVideos()).toEqual([]);
  });
});
