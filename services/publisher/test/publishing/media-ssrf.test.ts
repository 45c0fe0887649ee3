import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPublicAddress } from "../../src/media/address-policy.ts";
import { MediaError } from "../../src/media/media-error.ts";
import { createMediaReader } from "../../src/media/media-reader.ts";
import { sniffMediaType } from "../../src/media/sniff.ts";
import { jpegImage } from "../media/images.ts";
import { webmHead } from "../media/mp4-fixture.ts";
import {
  content,
  insertPost,
  type MemoryStorage,
  mediaFile,
  seedDemo,
  usePlatformTwins,
} from "../publishing-support.ts";

const twins = usePlatformTwins();
let host: { url: string; server: Server };
let jpeg: { bytes: Buffer };

beforeAll(async () => {
  jpeg = { bytes: await jpegImage(320, 240) };
  const server = createServer((req, res) => {
    if (req.url === "/to-postgres")
      return void res.writeHead(302, { location: "http://127.0.0.1:5432/" }).end();
    if (req.url === "/to-metadata")
      return void res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" }).end();
    if (req.url === "/photo.jpg")
      return void res
        .writeHead(200, { "content-type": "text/plain", "content-length": jpeg.bytes.length })
        .end(jpeg.bytes);
    if (req.url === "/huge")
      return void res.writeHead(200, { "content-length": String(600 * 1024 * 1024) }).end();
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  host = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
});
afterAll(async () => {
  await new Promise((resolve) => host.server.close(resolve));
});

const reader = () =>
  createMediaReader(twins.storage, {
    trustedOrigins: [host.url],
    connectTimeoutMs: 2000,
    totalTimeoutMs: 5000,
  });
const refusal = async (url: string) => {
  const error = await reader()
    .open(url)
    .then(
      () => undefined,
      (caught: unknown) => caught,
    );
  expect(error).toBeInstanceOf(MediaError);
  return (error as MediaError).code;
};

describe("media URLs are fetched with guards against server-side request forgery", () => {
  it("refuses the database port on loopback", async () => {
    expect(await refusal("http://127.0.0.1:5432/")).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses the cloud metadata address", async () => {
    expect(await refusal("http://169.254.169.254/latest/meta-data/")).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses a redirect from an allowed host to the database port", async () => {
    expect(await refusal(`${host.url}/to-postgres`)).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses a redirect to the metadata address", async () => {
    expect(await refusal(`${host.url}/to-metadata`)).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses a name that resolves to loopback", async () => {
    expect(await refusal("http://localhost:5432/")).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses schemes other than http and https", async () => {
    expect(await refusal("file:///etc/passwd")).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses IPv6 loopback and IPv4-mapped private addresses", async () => {
    expect(await refusal("http://[::1]:5432/")).toBe("MEDIA_URL_REJECTED");
    expect(await refusal("http://[::ffff:10.0.0.1]/")).toBe("MEDIA_URL_REJECTED");
    expect(await refusal("http://[::7f00:1]:5432/")).toBe("MEDIA_URL_REJECTED");
    expect(await refusal("http://[::127.0.0.1]/")).toBe("MEDIA_URL_REJECTED");
    expect(await refusal("http://[::ffff:0:7f00:1]/")).toBe("MEDIA_URL_REJECTED");
  });
  it("refuses media announced over 512 MB before reading it", async () => {
    expect(await refusal(`${host.url}/huge`)).toBe("MEDIA_TOO_LARGE");
  });
  it("reads a configured own origin and types the media from its bytes, not its header", async () => {
    const opened = await reader().open(`${host.url}/photo.jpg`);
    expect(opened).toMatchObject({ size: jpeg.bytes.length, contentType: "image/jpeg" });
    (opened.stream as NodeJS.ReadableStream & { destroy(): void }).destroy();
  });
});

describe("the address policy and the type sniffer", () => {
  it("tells public addresses from private, loopback, link-local and mapped ones", () => {
    expect(["8.8.8.8", "2606:4700:4700::1111", "1.1.1.1"].every(isPublicAddress)).toBe(true);
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "::1",
      "fe80::1",
      "fd00:ec2::254",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "64:ff9b::a9fe:a9fe",
      // IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0/96) forms of loopback and metadata
      "::7f00:1",
      "::127.0.0.1",
      "0:0:0:0:0:0:7f00:1",
      "::ffff:0:7f00:1",
      "::ffff:0:127.0.0.1",
      "::ffff:0:a9fe:a9fe",
      "::a9fe:a9fe",
      "0000:0000:0000:0000:0000:ffff:7f00:0001",
      "::ffff:0:0",
      "not-an-ip",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
  it("recognises JPEG, PNG, WebP, MP4, QuickTime and WebM by their first bytes", () => {
    expect(sniffMediaType(mediaFile("jpeg", 16).bytes)).toBe("image/jpeg");
    expect(sniffMediaType(mediaFile("png", 16).bytes)).toBe("image/png");
    expect(sniffMediaType(mediaFile("mp4", 16).bytes)).toBe("video/mp4");
    expect(sniffMediaType(Buffer.from("RIFF\0\0\0\0WEBPVP8 "))).toBe("image/webp");
    expect(sniffMediaType(Buffer.from("\0\0\0\x14ftypqt  \0\0\0\0", "latin1"))).toBe("video/quicktime");
    expect(sniffMediaType(webmHead())).toBe("video/webm");
    // An EBML file that does not say it is WebM (Matroska, or nothing) is not taken for WebM.
    expect(sniffMediaType(Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0, 0, 0, 0]))).toBeUndefined();
    expect(sniffMediaType(Buffer.from("<html><body>hello"))).toBeUndefined();
  });
});

test("a post whose media points at the database port fails with MEDIA_URL_REJECTED", async ({ db }) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const publishing = twins.publishing(db);
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
    content: content({ mediaItems: [{ url: "http://127.0.0.1:5432/video.mp4", mediaType: "VIDEO" }] }),
  });
  const [outcome] = await publishing.publishNow(postId, 10_000);
  expect(outcome).toMatchObject({ status: "failed", error: expect.stringMatching(/^MEDIA_URL_REJECTED/) });
});

test("a foreign photo is staged in our storage while it publishes, and the copy is deleted once the target is done", async ({
  db,
}) => {
  const demo = await seedDemo(db, twins.sandbox.url);
  const { storage } = twins;
  const staged: string[] = [];
  const watched: MemoryStorage = {
    ...storage,
    write: (path, body, options) => {
      staged.push(path);
      return storage.write(path, body, options);
    },
  };
  const publishing = twins.publishing(db, { storage: watched, media: { trustedOrigins: [host.url] } });
  const postId = await insertPost(db, {
    accountId: demo.accountId,
    connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
    content: content({ mediaItems: [{ url: `${host.url}/photo.jpg`, mediaType: "IMAGE" }] }),
  });
  const [outcome] = await publishing.publishNow(postId, 10_000);
  expect(outcome).toMatchObject({ status: "published" });
  // The staged copy, and the copy of it made to fit Bluesky; both gone once the target is done.
  expect(staged).toHaveLength(2);
  expect(staged[0]).toMatch(/^staged_[A-Za-z0-9_-]+_0$/);
  expect(staged[1]).toMatch(new RegExp(`^${staged[0]}_fit-bluesky-v1-[0-9a-f]{16}\\.jpg$`));
  for (const path of staged) expect(await storage.exists(path)).toBe(false);
});
