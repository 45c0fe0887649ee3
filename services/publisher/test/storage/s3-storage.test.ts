import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { PassThrough, Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { IncompleteBodyError } from "../../src/storage/errors.ts";
import { S3Storage } from "../../src/storage/s3.ts";

/**
 * A loopback S3 endpoint, path style: a signed PUT whose body matches its Content-Length is
 * stored (S3 refuses a short body: here the request is answered 400 `IncompleteBody`); GET and
 * HEAD read it back.
 */
const objects = new Map<string, { body: Buffer; type: string }>();
let server: Server;
let endpoint: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url ?? "/", "http://s3").pathname);
    if (!String(req.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256 ")) {
      res.writeHead(403).end();
      return;
    }
    if (req.method === "PUT") {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        if (body.length !== Number(req.headers["content-length"])) {
          res
            .writeHead(400, { "content-type": "application/xml" })
            .end("<Error><Code>IncompleteBody</Code></Error>");
          return;
        }
        objects.set(key, { body, type: String(req.headers["content-type"]) });
        res.writeHead(200, { etag: '"x"' }).end();
      });
      return;
    }
    const object = objects.get(key);
    if (!object) {
      res.writeHead(404, { "content-type": "application/xml" }).end("<Error><Code>NoSuchKey</Code></Error>");
      return;
    }
    res.writeHead(200, { "content-type": object.type, "content-length": object.body.length });
    res.end(req.method === "HEAD" ? undefined : object.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const storage = () =>
  new S3Storage({
    endpoint,
    region: "us-east-1",
    bucket: "media",
    forcePathStyle: true,
    credentials: { accessKeyId: "test-access", secretAccessKey: "test-secret" },
    publicBaseUrl: () => "http://127.0.0.1:1",
  });

describe("media in an S3-compatible store", () => {
  test("a body that ends short of its length is refused as incomplete, and nothing is stored", async () => {
    const body = Readable.from([randomBytes(300)]);
    await expect(
      storage().write("med_s3_short.mp4", body, { contentType: "video/mp4", expectedBytes: 500 }),
    ).rejects.toBeInstanceOf(IncompleteBodyError);
    expect(objects.has("/media/med_s3_short.mp4")).toBe(false);
  });

  test("a body that fails midway (the uploader went away) stores nothing", async () => {
    const body = new PassThrough();
    body.write(randomBytes(1000));
    setTimeout(() => body.destroy(new Error("client gone")), 20);
    await expect(
      storage().write("med_s3_failed.mp4", body, { contentType: "video/mp4", expectedBytes: 5000 }),
    ).rejects.toBeInstanceOf(IncompleteBodyError);
    expect(objects.has("/media/med_s3_failed.mp4")).toBe(false);
  });

  test("a body that is already arriving when the write starts reaches S3 whole", async () => {
    const chunk = 16 * 1024;
    const bytes = randomBytes(64 * chunk + 17);
    const body = new PassThrough();
    const writing = storage().write("med_s3_first_chunks.mp4", body, {
      contentType: "video/mp4",
      expectedBytes: bytes.length,
    });
    // Bytes keep arriving, as from an uploader's socket, while the SDK is still connecting: a
    // listener that starts the body flowing before the SDK reads it loses those.
    for (let offset = 0; offset < bytes.length; offset += chunk) {
      body.write(bytes.subarray(offset, offset + chunk));
      await new Promise((resolve) => setImmediate(resolve));
    }
    body.end();
    await writing;
    expect(objects.get("/media/med_s3_first_chunks.mp4")?.body.equals(bytes)).toBe(true);
    expect(await storage().exists("med_s3_first_chunks.mp4")).toBe(true);
  });

  test("a body of unknown length is spooled and stored whole", async () => {
    const bytes = randomBytes(200_000);
    await storage().write(
      "med_s3_spooled.jpg",
      Readable.from([bytes.subarray(0, 1000), bytes.subarray(1000)]),
      {
        contentType: "image/jpeg",
      },
    );
    expect(objects.get("/media/med_s3_spooled.jpg")?.body.equals(bytes)).toBe(true);
  });

  test("a body longer than declared is refused as incomplete, and nothing is stored", async () => {
    const body = Readable.from([randomBytes(1000)]);
    await expect(
      storage().write("med_s3_long.mp4", body, { contentType: "video/mp4", expectedBytes: 500 }),
    ).rejects.toBeInstanceOf(IncompleteBodyError);
    expect(objects.has("/media/med_s3_long.mp4")).toBe(false);
  });
});
