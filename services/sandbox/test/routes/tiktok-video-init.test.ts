import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_TIKTOK } from "../../src/demo.ts";
import {
  mediaBytes,
  postJson,
  type Sandbox,
  startMediaHost,
  startSandbox,
  tiktokTokens,
} from "../harness.ts";

const MB = 1024 * 1024;
let sandbox: Sandbox;
let media: Awaited<ReturnType<typeof startMediaHost>>;
const clip = mediaBytes(300_000, 5);
beforeAll(async () => {
  sandbox = await startSandbox();
  media = await startMediaHost({ "/media/clip.mp4": { type: "video/mp4", bytes: clip.bytes } });
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
    body: JSON.stringify({ tiktokVerifiedUrlPrefixes: [`${media.url}/media/`] }),
  });
});

const postInfo = {
  title: "Hello #sandbox",
  privacy_level: "PUBLIC_TO_EVERYONE",
  disable_comment: false,
  brand_content_toggle: false,
};
const fileSource = (videoSize: number, chunkSize = videoSize, count = 1) => ({
  source: "FILE_UPLOAD",
  video_size: videoSize,
  chunk_size: chunkSize,
  total_chunk_count: count,
});
const init = (token: string, body: unknown, path = "/v2/post/publish/video/init/") =>
  fetch(`${sandbox.url}${path}`, postJson(body, token));

describe("POST /v2/post/publish/video/init/: success", () => {
  test("a FILE_UPLOAD direct post answers a publish_id and an upload_url on the sandbox", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(access_token, { post_info: postInfo, source_info: fileSource(3 * MB) });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.error.code).toBe("ok");
    expect(body.data.publish_id).toMatch(/^v_pub_file~v2-1\.\d+$/);
    expect(new URL(body.data.upload_url).origin).toBe(sandbox.url);
  });

  test("a PULL_FROM_URL post fetches the verified URL, and the sandbox records the bytes it got", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(access_token, {
      post_info: postInfo,
      source_info: { source: "PULL_FROM_URL", video_url: `${media.url}/media/clip.mp4` },
    });
    const { data } = await json(res);
    expect(data.publish_id).toMatch(/^v_pub_url~/);
    expect(data.upload_url).toBeUndefined();
    const { posts } = await json(await fetch(`${sandbox.url}/_sandbox/tiktok/posts`));
    expect(posts[0]).toMatchObject({
      publishId: data.publish_id,
      status: "PROCESSING_DOWNLOAD",
      media: [{ bytes: 300_000, sha256: clip.sha256, contentType: "video/mp4" }],
      postInfo: { privacyLevel: "PUBLIC_TO_EVERYONE", title: "Hello #sandbox" },
    });
  });

  test("an inbox upload takes source_info only", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(
      access_token,
      { source_info: fileSource(MB) },
      "/v2/post/publish/inbox/video/init/",
    );
    expect((await json(res)).data.publish_id).toMatch(/^v_pub_file~/);
  });
});

describe("POST /v2/post/publish/video/init/: errors", () => {
  test("the private creator's PUBLIC_TO_EVERYONE is privacy_level_option_mismatch, SELF_ONLY works", async () => {
    const { access_token } = await tiktokTokens(sandbox.url, DEMO_TIKTOK.creators.private.openId);
    const refused = await init(access_token, { post_info: postInfo, source_info: fileSource(MB) });
    expect(refused.status).toBe(400);
    expect((await json(refused)).error.code).toBe("privacy_level_option_mismatch");
    const accepted = await init(access_token, {
      post_info: { ...postInfo, privacy_level: "SELF_ONLY" },
      source_info: fileSource(MB),
    });
    expect(accepted.status).toBe(200);
  });

  test("branded content cannot be SELF_ONLY", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(access_token, {
      post_info: { ...postInfo, privacy_level: "SELF_ONLY", brand_content_toggle: true },
      source_info: fileSource(MB),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({
      code: "invalid_params",
      message: expect.stringContaining("Branded"),
    });
  });

  test.for<[string, Record<string, unknown>]>([
    ["a small file split in chunks", fileSource(4 * MB, 2 * MB, 2)],
    ["a chunk under 5 MB", fileSource(20 * MB, 4 * MB, 5)],
    ["a chunk over 64 MB", fileSource(200 * MB, 65 * MB, 3)],
    ["a count that is not size / chunk rounded down", fileSource(23 * MB, 10 * MB, 3)],
    ["a file over 64 MB in one chunk", fileSource(100 * MB, 64 * MB, 1)],
    ["more than 1000 chunks", fileSource(5 * MB * 1001, 5 * MB, 1001)],
    ["a missing video_size", { source: "FILE_UPLOAD", chunk_size: MB, total_chunk_count: 1 }],
    ["an unknown source", { source: "CARRIER_PIGEON" }],
  ])("%s is invalid_params", async ([, source]) => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(access_token, { post_info: postInfo, source_info: source });
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe("invalid_params");
  });

  test("a title over 2200 characters is invalid_params", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(access_token, {
      post_info: { ...postInfo, title: "x".repeat(2201) },
      source_info: fileSource(MB),
    });
    expect((await json(res)).error.code).toBe("invalid_params");
  });

  test("the seventh init in a minute on one token is 429 rate_limit_exceeded", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    for (let index = 0; index < 6; index += 1) {
      expect((await init(access_token, { post_info: postInfo, source_info: fileSource(MB) })).status).toBe(
        200,
      );
    }
    const res = await init(access_token, { post_info: postInfo, source_info: fileSource(MB) });
    expect(res.status).toBe(429);
    expect((await json(res)).error.code).toBe("rate_limit_exceeded");
  });

  test("an injected spam_risk_too_many_posts answers in TikTok's envelope", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    await fetch(
      `${sandbox.url}/_sandbox/faults`,
      postJson({ operation: "tiktok.video.init", status: 403, error: "spam_risk_too_many_posts" }),
    );
    const res = await init(access_token, { post_info: postInfo, source_info: fileSource(MB) });
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({
      data: {},
      error: { code: "spam_risk_too_many_posts", log_id: expect.any(String) },
    });
  });
});

describe("POST /v2/post/publish/video/init/: security", () => {
  test("a URL outside the verified prefixes is 403 url_ownership_unverified and is never fetched", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await init(access_token, {
      post_info: postInfo,
      source_info: { source: "PULL_FROM_URL", video_url: `${media.url}/private/clip.mp4` },
    });
    expect(res.status).toBe(403);
    expect((await json(res)).error.code).toBe("url_ownership_unverified");
    expect((await json(await fetch(`${sandbox.url}/_sandbox/tiktok/posts`))).posts).toEqual([]);
  });

  test("a token with video.upload only cannot direct post (scope_not_authorized)", async () => {
    const { access_token } = await tiktokTokens(sandbox.url, DEMO_TIKTOK.creators.public.openId, [
      "video.upload",
    ]);
    const res = await init(access_token, { post_info: postInfo, source_info: fileSource(MB) });
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("scope_not_authorized");
  });
});
