import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { S3Storage } from "../src/storage/s3.ts";

/** A loopback S3 endpoint, path style, and what it holds (keys as `/bucket/key`). */
export type FakeS3 = {
  endpoint: string;
  objects: Map<string, { body: Buffer; type: string }>;
  /** Whether a GET's `Range` is answered with 206 and that range (S3 does), or ignored (200, the whole object). */
  honourRange: boolean;
  /** An `S3Storage` on this endpoint, bucket `media`. */
  storage(): S3Storage;
  close(): Promise<void>;
};

/**
 * Starts a fake S3: a signed PUT whose body matches its Content-Length is stored (S3 refuses a
 * short body: here the request is answered 400 `IncompleteBody`); GET (with `Range` when
 * `honourRange`) and HEAD read it back; a request without a SigV4 `Authorization` is 403, but for
 * reads of a `publicRead` bucket.
 */
export async function startFakeS3(options: { honourRange: boolean; publicRead?: boolean }): Promise<FakeS3> {
  const objects = new Map<string, { body: Buffer; type: string }>();
  const server = createServer((req, res) => {
    const key = decodeURIComponent(new URL(req.url ?? "/", "http://s3").pathname);
    const signed = String(req.headers.authorization ?? "").startsWith("AWS4-HMAC-SHA256 ");
    if (!signed && !(options.publicRead && (req.method === "GET" || req.method === "HEAD"))) {
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
    const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ""));
    if (range && fake.honourRange) {
      const start = Number(range[1]);
      const end = Math.min(Number(range[2]), object.body.length - 1);
      res.writeHead(206, {
        "content-type": object.type,
        "content-length": end - start + 1,
        "content-range": `bytes ${start}-${end}/${object.body.length}`,
      });
      res.end(req.method === "HEAD" ? undefined : object.body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { "content-type": object.type, "content-length": object.body.length });
    res.end(req.method === "HEAD" ? undefined : object.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const fake: FakeS3 = {
    endpoint,
    objects,
    honourRange: options.honourRange,
    storage: () =>
      new S3Storage({
        endpoint,
        region: "us-east-1",
        bucket: "media",
        forcePathStyle: true,
        credentials: { accessKeyId: "test-access", secretAccessKey: "test-secret" },
        publicBaseUrl: () => `${endpoint}/media`,
      }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return fake;
}
