import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { MAX_UPLOAD_BYTES } from "../../src/uploads/limits.ts";
import { publisherApp, seedAccount } from "../support.ts";

const BYTES = Buffer.from("0123456789abcdef".repeat(64));

function multipart(field: string, filename: string, type: string, content: Buffer) {
  const boundary = "----publisher-test-boundary";
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="note"\r\n\r\nhello\r\n`),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`,
    ),
    content,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

function upload(
  app: ReturnType<typeof publisherApp>["app"],
  key: string | undefined,
  body: Buffer | string,
  headers: Record<string, string>,
) {
  const all: Record<string, string> = { "content-length": String(Buffer.byteLength(body)), ...headers };
  if (key) all["x-api-key"] = key;
  return Promise.resolve(app.request("/api/v1/upload", { method: "POST", headers: all, body }));
}

describe("POST /api/v1/upload: success", () => {
  test("a raw body named by x-filename is stored and publicly fetchable at videoUrl", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const res = await upload(app, key, BYTES, {
      "x-filename": "clip.mp4",
      "content-type": "application/octet-stream",
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      success: true,
      videoUrl: `http://localhost/media/${body.path}`,
      path: expect.stringMatching(/^med_[A-Za-z0-9_-]+\.mp4$/),
      message: `Uploaded ${BYTES.length} bytes.`,
    });
    const fetched = await app.request(body.videoUrl);
    expect(fetched.status).toBe(200);
    expect(fetched.headers.get("content-type")).toBe("video/mp4");
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(BYTES);
    const [media] = await db.query<{ complete: boolean; size_bytes: number }>(
      "SELECT complete, size_bytes FROM publisher.media WHERE path = $1",
      [body.path],
    );
    expect(media).toEqual({ complete: true, size_bytes: BYTES.length });
  });

  test("a multipart field named file is stored with its type; other fields are ignored", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const form = multipart("file", "photo.png", "image/png", BYTES);
    const res = await upload(app, key, form.body, { "content-type": form.contentType });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.path).toMatch(/\.png$/);
    const fetched = await app.request(body.videoUrl);
    expect(fetched.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await fetched.arrayBuffer())).toEqual(BYTES);
  });
});

describe("POST /api/v1/upload: errors", () => {
  test("a JSON body gets exactly the 426 upgrade body", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const res = await upload(app, key, '{"filename":"a.mp4"}', { "content-type": "application/json" });
    expect(res.status).toBe(426);
    const body = await json(res);
    expect(Object.keys(body).sort()).toEqual(["error", "message", "upgradeTo"]);
    expect(body).toMatchObject({ error: "UPLOAD_CONTRACT_UPGRADED", upgradeTo: "/api/v2/upload" });
  });

  test("no Content-Length is 411 and over 512 MiB is 413, both closing the connection", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new Uint8Array([1, 2, 3]));
        controller.close();
      },
    });
    const missing = await app.request("/api/v1/upload", {
      method: "POST",
      headers: { "x-api-key": key, "x-filename": "a.mp4" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(missing.status).toBe(411);
    expect(missing.headers.get("connection")).toBe("close");
    expect(await json(missing)).toMatchObject({ error: "LENGTH_REQUIRED" });
    const huge = await app.request("/api/v1/upload", {
      method: "POST",
      headers: { "x-api-key": key, "x-filename": "a.mp4", "content-length": String(MAX_UPLOAD_BYTES + 1) },
    });
    expect(huge.status).toBe(413);
    expect(huge.headers.get("connection")).toBe("close");
    expect(await json(huge)).toMatchObject({ error: "PAYLOAD_TOO_LARGE", limitBytes: MAX_UPLOAD_BYTES });
    expect(await readdir(storage.options.dir).catch(() => [])).toEqual([]);
  });

  test("a raw body shorter than its Content-Length leaves no file behind", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const res = await upload(app, key, BYTES, {
      "x-filename": "clip.mp4",
      "content-length": String(BYTES.length + 10),
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "INCOMPLETE_UPLOAD", receivedBytes: BYTES.length });
    const left = (await readdir(storage.options.dir)).filter((name) => name !== ".incoming");
    expect(left).toEqual([]);
    expect(await readdir(join(storage.options.dir, ".incoming"))).toEqual([]);
  });

  test("a truncated multipart body leaves no file behind", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const form = multipart("file", "clip.mp4", "video/mp4", BYTES);
    const cut = form.body.subarray(0, form.body.length - 40);
    const res = await upload(app, key, cut, { "content-type": form.contentType });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "INCOMPLETE_UPLOAD" });
    const left = (await readdir(storage.options.dir).catch(() => [] as string[])).filter(
      (name) => name !== ".incoming",
    );
    expect(left).toEqual([]);
  });

  test("a body that is neither video nor image, or a form without file, is a 400", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const text = await upload(app, key, "hello", { "x-filename": "notes.txt", "content-type": "text/plain" });
    expect(text.status).toBe(400);
    expect(await json(text)).toMatchObject({ error: "VALIDATION_FAILED" });
    const form = multipart("other", "clip.mp4", "video/mp4", BYTES);
    const noFile = await upload(app, key, form.body, { "content-type": form.contentType });
    expect(await json(noFile)).toMatchObject({ error: "INCOMPLETE_UPLOAD" });
  });
});

describe("POST /api/v1/upload: security", () => {
  test("no key is 401 and a key without media:write is 403, before the body is looked at", async ({ db }) => {
    const { key } = await seedAccount(db, { scopes: ["posts:read", "posts:write"] });
    const { app } = publisherApp(db);
    expect((await upload(app, undefined, BYTES, { "x-filename": "a.mp4" })).status).toBe(401);
    const forbidden = await upload(app, key, "{}", { "content-type": "application/json" });
    expect(forbidden.status).toBe(403);
    expect(await json(forbidden)).toMatchObject({
      error: "INSUFFICIENT_SCOPE",
      requiredScope: "media:write",
    });
  });
});
