import { request } from "node:http";
import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { googleTokens, mediaBytes, type Sandbox, startSandbox } from "../harness.ts";

let sandbox: Sandbox;
let accessToken: string;
beforeAll(async () => {
  sandbox = await startSandbox((settings) => {
    settings.google.uploadsPerDay = 3;
  });
});
afterAll(() => sandbox.close());
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  accessToken = (await googleTokens(sandbox.url)).access_token;
});

const BOUNDARY = "3f1c0b8e-5d3a-4c1e-9e6f-0a2b4c6d8e0f";
const metadata = {
  snippet: { title: "One request", description: "multipart", tags: ["m"] },
  status: { privacyStatus: "unlisted" },
};

type Part = { type?: string; body: Buffer | string };

/** A multipart/related body laid out as the official Node client lays it out. */
function multipartBody(parts: Part[], boundary = BOUNDARY, close = true): Buffer {
  const pieces: Buffer[] = [];
  for (const part of parts) {
    const headers = part.type === undefined ? "" : `content-type: ${part.type}\r\n`;
    pieces.push(Buffer.from(`--${boundary}\r\n${headers}\r\n`), Buffer.from(part.body), Buffer.from("\r\n"));
  }
  if (close) pieces.push(Buffer.from(`--${boundary}--`));
  return Buffer.concat(pieces);
}

const videoParts = (video: Buffer, meta: unknown = metadata): Part[] => [
  { type: "application/json", body: JSON.stringify(meta) },
  { type: "video/mp4", body: video },
];

const insertUrl = (query = "uploadType=multipart&part=snippet,status") =>
  `${sandbox.url}/upload/youtube/v3/videos?${query}`;

function insert(body: Buffer, headers: Record<string, string> = {}, query?: string) {
  return fetch(insertUrl(query), {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": `multipart/related; boundary=${BOUNDARY}`,
      ...headers,
    },
    body,
  });
}

/**
 * Sends a body chunked (no Content-Length), in pieces of `pieceSize` bytes so that boundaries
 * fall across writes, as a streaming client's body does.
 */
// biome-ignore lint/suspicious/noExplicitAny: assertions inspect arbitrary JSON bodies
function insertChunked(body: Buffer, pieceSize: number): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(insertUrl(), {
      method: "POST",
      headers: {
        authorization: `Bearer ${accessToken}`,
        "content-type": `multipart/related; boundary=${BOUNDARY}`,
        "transfer-encoding": "chunked",
      },
    });
    req.on("error", reject);
    req.on("response", (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }),
      );
    });
    for (let offset = 0; offset < body.length; offset += pieceSize)
      req.write(body.subarray(offset, offset + pieceSize));
    req.end();
  });
}

async function sandboxVideos() {
  return (await json(await fetch(`${sandbox.url}/_sandbox/youtube/videos`))).videos as Record<
    string,
    unknown
  >[];
}

describe("POST /upload/youtube/v3/videos?uploadType=multipart: success", () => {
  test("metadata then video, with a Content-Length: 200 with the video resource, the bytes counted and hashed", async () => {
    const { bytes, sha256 } = mediaBytes(300_000, 7);
    const res = await insert(multipartBody(videoParts(bytes)));
    expect(res.status).toBe(200);
    const video = await json(res);
    expect(video).toMatchObject({
      kind: "youtube#video",
      id: expect.stringMatching(/^[\w-]{11}$/),
      snippet: { title: "One request", description: "multipart", tags: ["m"] },
      status: { uploadStatus: "uploaded", privacyStatus: "unlisted" },
    });
    expect(await sandboxVideos()).toEqual([
      expect.objectContaining({
        id: video.id,
        uploadType: "multipart",
        bytes: 300_000,
        sha256,
        contentType: "video/mp4",
      }),
    ]);
  });

  test("chunked (no Content-Length), in pieces that split the boundaries: the same video", async () => {
    const { bytes, sha256 } = mediaBytes(70_000, 3);
    for (const pieceSize of [1, 7, 4096]) {
      await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
      accessToken = (await googleTokens(sandbox.url)).access_token;
      const answer = await insertChunked(multipartBody(videoParts(bytes)), pieceSize);
      expect(answer.status).toBe(200);
      expect(answer.body.snippet.title).toBe("One request");
      expect(await sandboxVideos()).toEqual([expect.objectContaining({ bytes: 70_000, sha256 })]);
    }
  });

  test("a quoted boundary, a preamble, transport padding and an epilogue are read as RFC 2046 allows", async () => {
    const { bytes, sha256 } = mediaBytes(1000);
    const body = Buffer.concat([
      Buffer.from("This is a preamble.\r\n"),
      multipartBody(videoParts(bytes)).subarray(0, -`--${BOUNDARY}--`.length),
      Buffer.from(`--${BOUNDARY}--  \r\nepilogue`),
    ]);
    const res = await insert(body, { "content-type": `multipart/related; boundary="${BOUNDARY}"` });
    expect(res.status).toBe(200);
    expect(await sandboxVideos()).toEqual([expect.objectContaining({ bytes: 1000, sha256 })]);
  });

  test("the answer has the parts the insert asked for, and only those", async () => {
    const res = await insert(
      multipartBody(videoParts(mediaBytes(10).bytes)),
      {},
      "uploadType=multipart&part=status",
    );
    const video = await json(res);
    expect(video.status).toMatchObject({ privacyStatus: "unlisted" });
    expect(video.snippet).toBeUndefined();
  });
});

describe("POST /upload/youtube/v3/videos?uploadType=multipart: errors", () => {
  const cases: [string, Buffer, string, string?][] = [
    [
      "the video before the metadata",
      multipartBody([
        { type: "video/mp4", body: mediaBytes(10).bytes },
        { type: "application/json", body: JSON.stringify(metadata) },
      ]),
      "badRequest",
    ],
    [
      "metadata alone",
      multipartBody([{ type: "application/json", body: JSON.stringify(metadata) }]),
      "badRequest",
    ],
    [
      "a third part",
      multipartBody([...videoParts(mediaBytes(10).bytes), { type: "video/mp4", body: "more" }]),
      "badRequest",
    ],
    ["no closing boundary", multipartBody(videoParts(mediaBytes(10).bytes), BOUNDARY, false), "badRequest"],
    [
      "an image as the media",
      multipartBody([
        { type: "application/json", body: JSON.stringify(metadata) },
        { type: "image/png", body: "png" },
      ]),
      "badRequest",
      "Media type 'image/png' is not supported. Valid media types: [video/*, application/octet-stream]",
    ],
    [
      "metadata that is not JSON",
      multipartBody([
        { type: "application/json", body: "{title" },
        { type: "video/mp4", body: "v" },
      ]),
      "parseError",
    ],
    [
      "metadata of another type",
      multipartBody([
        { type: "text/plain", body: "{}" },
        { type: "video/mp4", body: "v" },
      ]),
      "badRequest",
    ],
    [
      "an invalid title",
      multipartBody(videoParts(mediaBytes(10).bytes, { snippet: { title: "a <b>" } })),
      "invalidTitle",
    ],
    ["an empty video", multipartBody(videoParts(Buffer.alloc(0))), "mediaBodyRequired"],
  ];

  test.for(cases)(
    "%s is a 400 in Google's format, and no video is made",
    async ([, body, reason, message]) => {
      const res = await insert(body);
      expect(res.status).toBe(400);
      const answer = await json(res);
      expect(answer.error).toMatchObject({
        code: 400,
        status: "INVALID_ARGUMENT",
        errors: [expect.objectContaining({ reason })],
      });
      if (message) expect(answer.error.message).toBe(message);
      expect(await sandboxVideos()).toEqual([]);
    },
  );

  test("a Content-Type without a boundary, or not multipart/related, is refused before the body is read", async () => {
    const body = multipartBody(videoParts(mediaBytes(10).bytes));
    for (const type of ["multipart/related", "multipart/form-data; boundary=x", "application/json"]) {
      const res = await insert(body, { "content-type": type });
      expect(res.status).toBe(400);
      expect((await json(res)).error.errors[0].reason).toBe("badRequest");
    }
  });

  test("past the daily uploads a chunked multipart insert gets its 403 quotaExceeded answer, not a broken connection", async () => {
    const body = multipartBody(videoParts(mediaBytes(200_000).bytes));
    for (let index = 0; index < 3; index += 1) expect((await insertChunked(body, 16_384)).status).toBe(200);
    const refused = await insertChunked(body, 16_384);
    expect(refused.status).toBe(403);
    expect(refused.body.error.errors[0]).toMatchObject({ reason: "quotaExceeded", domain: "youtube.quota" });
    expect(await sandboxVideos()).toHaveLength(3);
  });
});

describe("POST /upload/youtube/v3/videos?uploadType=multipart: security", () => {
  test("no token is 401 required, and nothing is made", async () => {
    const body = multipartBody(videoParts(mediaBytes(10).bytes));
    const none = await insert(body, { authorization: "" });
    expect(none.status).toBe(401);
    expect((await json(none)).error.errors[0].reason).toBe("required");
    expect(await sandboxVideos()).toEqual([]);
  });
});
