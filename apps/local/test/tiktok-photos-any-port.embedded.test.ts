import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Launch, launch, readManifest, waitFor } from "./support/launch.ts";

type PublisherDemo = { apiKey: string; connections: { tiktok: string } };

/** A small real JPEG of one colour. */
const jpeg = (red: number) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: red, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();

describe("the launcher on ports of its own choosing", () => {
  let dataDir: string;
  let platform: Launch;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "platform-ports-"));
    // Every port 0: the publisher listens anywhere but its default 3002.
    platform = launch(dataDir, {}, "apps/local/test/support/slim-platform.ts");
    await waitFor(() => platform.output().includes("slim platform up"), "the slim platform");
  }, 120_000);
  afterAll(async () => {
    platform?.child.kill("SIGINT");
    await platform?.exited;
    await rm(dataDir, { recursive: true, force: true });
  });

  it("publishes a TikTok photo post: the sandbox verifies the publisher's media prefix wherever it listens", {
    timeout: 60_000,
  }, async () => {
    const manifest = await readManifest(dataDir);
    const publisher = manifest.services.publisher?.url as string;
    expect(new URL(publisher).port).not.toBe("3002");
    const demo = manifest.credentials.publisher as PublisherDemo;
    const headers = { "x-api-key": demo.apiKey };
    const urls: string[] = [];
    for (const red of [200, 20]) {
      const res = await fetch(`${publisher}/api/v1/upload`, {
        method: "POST",
        headers: { ...headers, "x-filename": `photo-${red}.jpg`, "content-type": "image/jpeg" },
        body: await jpeg(red),
      });
      expect(res.status).toBe(200);
      urls.push(((await res.json()) as { videoUrl: string }).videoUrl);
    }
    expect(urls.every((url) => url.startsWith(`${publisher}/`))).toBe(true);
    const res = await fetch(`${publisher}/api/v1/publish`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({
        caption: "photos from any port",
        connectionIds: [demo.connections.tiktok],
        mediaUrls: urls,
      }),
    });
    const body = (await res.json()) as { platforms: { status: string; error?: unknown }[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.platforms).toEqual([expect.objectContaining({ status: "published" })]);
  });
});
