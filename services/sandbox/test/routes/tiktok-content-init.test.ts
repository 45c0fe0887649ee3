import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import {
  mediaBytes,
  postJson,
  type Sandbox,
  startMediaHost,
  startSandbox,
  tiktokTokens,
} from "../harness.ts";

let sandbox: Sandbox;
let media: Awaited<ReturnType<typeof startMediaHost>>;
let token: string;
const jpeg = mediaBytes(40_000, 2);
beforeAll(async () => {
  sandbox = await startSandbox();
  media = await startMediaHost({
    "/m/a.jpg": { type: "image/jpeg", bytes: jpeg.bytes },
    "/m/b.webp": { type: "image/webp", bytes: mediaBytes(30_000, 3).bytes },
    "/m/c.png": { type: "image/png", bytes: mediaBytes(10_000, 4).bytes },
  });
});
afterAll(async () => {
  await sandbox.close();
  await media.close();
});
beforeEach(async () => {
  await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
  await fetch(`${sandbox.url}/_sandbox/settings`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ tiktokVerifiedUrlPrefixes: [`${media.url}/m/`], tiktokProcessingPolls: 0 }),
  });
  token = (await tiktokTokens(sandbox.url)).access_token;
});

const photos = (images: string[], extra: Record<string, unknown> = {}) => ({
  media_type: "PHOTO",
  post_mode: "DIRECT_POST",
  post_info: { title: "Carousel", description: "Two photos", privacy_level: "PUBLIC_TO_EVERYONE" },
  source_info: {
    source: "PULL_FROM_URL",
    photo_images: images.map((name) => `${media.url}/m/${name}`),
    photo_cover_index: 0,
  },
  ...extra,
});
const init = (body: unknown) => fetch(`${sandbox.url}/v2/post/publish/content/init/`, postJson(body, token));
const status = async (publishId: string) =>
  (
    await json(
      await fetch(`${sandbox.url}/v2/post/publish/status/fetch/`, postJson({ publish_id: publishId }, token)),
    )
  ).data;

describe("POST /v2/post/publish/content/init/: success", () => {
  test("a JPEG and WEBP carousel is pulled, recorded with each photo's hash, and completes", async () => {
    const res = await init(photos(["a.jpg", "b.webp"]));
    const { data } = await json(res);
    expect(data.publish_id).toMatch(/^p_pub_url~/);
    const { posts } = await json(await fetch(`${sandbox.url}/_sandbox/tiktok/posts`));
    expect(posts[0]).toMatchObject({
      mediaType: "PHOTO",
      media: [{ bytes: 40_000, sha256: jpeg.sha256 }, { bytes: 30_000 }],
    });
    expect((await status(data.publish_id)).status).toBe("PUBLISH_COMPLETE");
  });
});

describe("POST /v2/post/publish/content/init/: errors", () => {
  test("a PNG photo makes the post FAILED with file_format_check_failed", async () => {
    const { data } = await json(await init(photos(["a.jpg", "c.png"])));
    expect(await status(data.publish_id)).toMatchObject({
      status: "FAILED",
      fail_reason: "file_format_check_failed",
    });
  });

  test("a photo URL that answers 404 makes the post FAILED with photo_pull_failed", async () => {
    const { data } = await json(await init(photos(["missing.jpg"])));
    expect(await status(data.publish_id)).toMatchObject({
      status: "FAILED",
      fail_reason: "photo_pull_failed",
    });
  });

  test.for<[string, () => Record<string, unknown>]>([
    ["more than 35 photos", () => photos(Array.from({ length: 36 }, () => "a.jpg"))],
    ["no photos", () => photos([])],
    [
      "a cover index past the photos",
      () =>
        photos(["a.jpg"], {
          source_info: {
            source: "PULL_FROM_URL",
            photo_images: [`${media.url}/m/a.jpg`],
            photo_cover_index: 3,
          },
        }),
    ],
    ["a FILE_UPLOAD source", () => photos(["a.jpg"], { source_info: { source: "FILE_UPLOAD" } })],
    ["a media_type other than PHOTO", () => photos(["a.jpg"], { media_type: "VIDEO" })],
    [
      "a photo title over 90 characters",
      () => photos(["a.jpg"], { post_info: { title: "t".repeat(91), privacy_level: "SELF_ONLY" } }),
    ],
  ])("%s is invalid_params", async ([, body]) => {
    const res = await init(body());
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("invalid_params");
  });
});

describe("POST /v2/post/publish/content/init/: security", () => {
  test("a photo outside the verified prefixes is 403 url_ownership_unverified", async () => {
    const res = await init({
      ...photos([]),
      source_info: { source: "PULL_FROM_URL", photo_images: ["http://127.0.0.1:9/x.jpg"] },
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("url_ownership_unverified");
  });
});
