import { randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGuardedLinkPreviewer } from "../../src/link-preview/link-previewer.ts";
import { THUMB_MAX_BYTES } from "../../src/link-preview/thumbnail.ts";

let server: Server;
let origin: string;
let photo: Buffer;
const page = (image: string) =>
  `<html><head><meta property="og:title" content="A page"><meta property="og:description" content="Its words"><meta property="og:image" content="${image}"></head><body>${"x".repeat(50_000)}</body></html>`;

beforeAll(async () => {
  // A noisy 1600 × 1200 photo: megabytes as a PNG, far over a card's 1,000,000 bytes.
  const noise = randomBytes(1600 * 1200 * 3);
  photo = await sharp(noise, { raw: { width: 1600, height: 1200, channels: 3 } })
    .png()
    .toBuffer();
  server = createServer((req, res) => {
    if (req.url === "/article") {
      // Chunked, as most pages are: no Content-Length.
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.write(page("/photo.png").slice(0, 100));
      res.end(page("/photo.png").slice(100));
    } else if (req.url === "/photo.png") {
      res.writeHead(200, { "content-type": "image/png", "content-length": photo.length });
      res.end(photo);
    } else if (req.url === "/huge") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(`<html><head><title>t</title></head>${"y".repeat(2 * 1024 * 1024)}`);
    } else if (req.url === "/json") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"title":"no"}');
    } else if (req.url === "/broken-image") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(page("/missing.png"));
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("the link previewer on the guarded fetcher", () => {
  it("reads a chunked page's card and makes its photo a JPEG thumbnail under the card limit", async () => {
    const preview = await createGuardedLinkPreviewer([origin]).preview(`${origin}/article`);
    expect(preview).toMatchObject({ title: "A page", description: "Its words" });
    const thumbnail = preview?.thumbnail as Buffer;
    expect(photo.length).toBeGreaterThan(THUMB_MAX_BYTES);
    expect(thumbnail.length).toBeLessThanOrEqual(THUMB_MAX_BYTES);
    const meta = await sharp(thumbnail).metadata();
    expect(meta).toMatchObject({ format: "jpeg", width: 1200, height: 900 });
  });

  it("gives a card without a thumbnail when the image cannot be read", async () => {
    const preview = await createGuardedLinkPreviewer([origin]).preview(`${origin}/broken-image`);
    expect(preview).toEqual({ title: "A page", description: "Its words" });
  });

  it("gives no card for a loopback page not trusted, a page over 1 MiB, or a page that is not HTML", async () => {
    expect(await createGuardedLinkPreviewer([]).preview(`${origin}/article`)).toBeUndefined();
    const previewer = createGuardedLinkPreviewer([origin]);
    expect(await previewer.preview(`${origin}/huge`)).toBeUndefined();
    expect(await previewer.preview(`${origin}/json`)).toBeUndefined();
    expect(await previewer.preview("http://169.254.169.254/latest/meta-data/")).toBeUndefined();
  });
});
