import { readdir } from "node:fs/promises";
import { json, test } from "@app/testkit";
import { PutObjectCommand } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { describe, expect } from "vitest";
import { s3Client } from "../../src/storage/presigner.ts";
import { call, publisherApp, seedAccount, TEST_CREDENTIALS } from "../support.ts";

const FILE = Buffer.from("video-bytes-".repeat(100));

async function presigned(db: Parameters<typeof seedAccount>[0], body: Record<string, unknown> = {}) {
  const { key } = await seedAccount(db);
  // The SDK signs with the system time, so the service's clock starts there too.
  const testApp = publisherApp(db, { presignExpiresSeconds: 900, now: new Date().toISOString() });
  const res = await call(testApp.app, "POST", "/api/v2/upload", key, {
    contentLength: FILE.length,
    filename: "clip.mp4",
    contentType: "video/mp4",
    ...body,
  });
  return { ...testApp, key, res, answer: await json(res) };
}

function put(
  app: ReturnType<typeof publisherApp>["app"],
  url: string,
  body: Buffer,
  headers: Record<string, string> = {},
) {
  return Promise.resolve(
    app.request(url, {
      method: "PUT",
      headers: { "content-type": "video/mp4", "content-length": String(body.length), ...headers },
      body,
    }),
  );
}

describe("POST /api/v2/upload: success", () => {
  test("answers an S3 presigned PUT bound to size and type, and the public videoUrl", async ({ db }) => {
    const { res, answer } = await presigned(db);
    expect(res.status).toBe(200);
    expect(answer).toEqual({
      success: true,
      uploadUrl: expect.stringMatching(/^http:\/\/localhost\/storage\/media\/med_.+\.mp4\?/),
      videoUrl: `http://localhost/media/${answer.path}`,
      path: expect.stringMatching(/^med_.+\.mp4$/),
      expiresIn: 900,
      message: expect.stringContaining(`Content-Length: ${FILE.length}`),
    });
    const query = new URL(answer.uploadUrl).searchParams;
    expect(query.get("X-Amz-Algorithm")).toBe("AWS4-HMAC-SHA256");
    expect(query.get("X-Amz-Expires")).toBe("900");
    expect(query.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect([...query.keys()].filter((name) => /checksum/i.test(name))).toEqual([]);
  });

  test("a PUT of exactly the signed size and type stores the file, served at videoUrl", async ({ db }) => {
    const { app, answer } = await presigned(db);
    const stored = await put(app, answer.uploadUrl, FILE);
    expect(stored.status).toBe(200);
    const fetched = await app.request(answer.videoUrl);
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(FILE);
    const [media] = await db.query<{ complete: boolean }>(
      "SELECT complete FROM publisher.media WHERE path = $1",
      [answer.path],
    );
    expect(media?.complete).toBe(true);
  });

  test("a URL presigned by the AWS SDK itself is accepted by the embedded endpoint", async ({ db }) => {
    const { app } = publisherApp(db, { now: new Date().toISOString() });
    const client = s3Client({
      endpoint: "http://localhost/storage",
      region: TEST_CREDENTIALS.region,
      bucket: "media",
      forcePathStyle: true,
      credentials: TEST_CREDENTIALS,
    });
    const url = await getSignedUrl(
      client,
      new PutObjectCommand({
        Bucket: "media",
        Key: "med_sdk.mp4",
        ContentType: "video/mp4",
        ContentLength: FILE.length,
      }),
      { expiresIn: 60, signableHeaders: new Set(["content-length", "content-type"]) },
    );
    expect((await put(app, url, FILE)).status).toBe(200);
    expect(Buffer.from(await (await app.request("/media/med_sdk.mp4")).arrayBuffer())).toEqual(FILE);
  });

  test("the type comes from the filename when no contentType is given", async ({ db }) => {
    const { answer } = await presigned(db, { contentType: undefined, filename: "photo.JPG" });
    expect(answer.path).toMatch(/\.jpg$/);
    expect(answer.message).toContain("image/jpeg");
  });
});

describe("PUT to the presigned URL: refusals as S3 gives them", () => {
  test("one byte more or less is refused with 403 SignatureDoesNotMatch and nothing is stored", async ({
    db,
  }) => {
    const { app, answer, storage } = await presigned(db);
    for (const body of [FILE.subarray(1), Buffer.concat([FILE, Buffer.from("x")])]) {
      const res = await put(app, answer.uploadUrl, body);
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toBe("application/xml");
      expect(await res.text()).toMatch(
        /<Error><Code>SignatureDoesNotMatch<\/Code><Message>.+<\/Message><RequestId>/,
      );
    }
    expect(await storage.exists(answer.path)).toBe(false);
  });

  test("another content type is refused", async ({ db }) => {
    const { app, answer } = await presigned(db);
    const res = await put(app, answer.uploadUrl, FILE, { "content-type": "video/webm" });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain("<Code>SignatureDoesNotMatch</Code>");
  });

  test("a tampered query (longer expiry, other path) is refused", async ({ db }) => {
    const { app, answer } = await presigned(db);
    const longer = answer.uploadUrl.replace("X-Amz-Expires=900", "X-Amz-Expires=9000");
    expect(await (await put(app, longer, FILE)).text()).toContain("SignatureDoesNotMatch");
    const elsewhere = answer.uploadUrl.replace(answer.path, "med_other.mp4");
    expect((await put(app, elsewhere, FILE)).status).toBe(403);
  });

  test("an expired URL is refused with AccessDenied, and one from the future with RequestTimeTooSkewed", async ({
    db,
  }) => {
    const { app, answer, clock } = await presigned(db);
    clock.advance(901_000);
    const late = await put(app, answer.uploadUrl, FILE);
    expect(late.status).toBe(403);
    expect(await late.text()).toContain("<Code>AccessDenied</Code><Message>Request has expired</Message>");
    clock.advance(-901_000 - 16 * 60_000);
    expect(await (await put(app, answer.uploadUrl, FILE)).text()).toContain(
      "<Code>RequestTimeTooSkewed</Code>",
    );
  });

  test("a URL without signature parameters, another key id, or another bucket is refused", async ({ db }) => {
    const { app, answer } = await presigned(db);
    const bare = answer.uploadUrl.split("?")[0];
    expect(await (await put(app, bare, FILE)).text()).toContain("<Code>AccessDenied</Code>");
    const otherKey = answer.uploadUrl.replace(
      encodeURIComponent(TEST_CREDENTIALS.accessKeyId),
      "someone-else",
    );
    expect(await (await put(app, otherKey, FILE)).text()).toContain("<Code>InvalidAccessKeyId</Code>");
    const otherBucket = answer.uploadUrl.replace("/storage/media/", "/storage/private/");
    expect((await put(app, otherBucket, FILE)).status).toBe(404);
  });

  test("a body short of a signed Content-Length leaves no file behind", async ({ db }) => {
    const { app, answer, storage } = await presigned(db);
    const res = await put(app, answer.uploadUrl, FILE.subarray(10), {
      "content-length": String(FILE.length),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("<Code>IncompleteBody</Code>");
    expect(await storage.exists(answer.path)).toBe(false);
    const incoming = await readdir(`${storage.options.dir}/.incoming`).catch(() => []);
    expect(incoming).toEqual([]);
  });
});

describe("POST /api/v2/upload: errors and security", () => {
  test("a size of 0 or over 512 MiB, a text type, or no type at all is 400", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const cases = [
      { contentLength: 0, contentType: "video/mp4" },
      { contentLength: 512 * 1024 * 1024 + 1, contentType: "video/mp4" },
      { contentLength: 10, contentType: "text/plain" },
      { contentLength: 10, filename: "notes" },
      { contentType: "video/mp4" },
    ];
    for (const body of cases) {
      const res = await call(app, "POST", "/api/v2/upload", key, body);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("VALIDATION_FAILED");
    }
  });

  test("no key is 401 and a key without media:write is 403", async ({ db }) => {
    const { key } = await seedAccount(db, { scopes: ["posts:write"] });
    const { app } = publisherApp(db);
    expect((await call(app, "POST", "/api/v2/upload", undefined, { contentLength: 1 })).status).toBe(401);
    expect((await call(app, "POST", "/api/v2/upload", key, { contentLength: 1 })).status).toBe(403);
  });
});
