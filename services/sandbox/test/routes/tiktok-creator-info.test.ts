import { json } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { DEMO_TIKTOK } from "../../src/demo.ts";
import { postJson, type Sandbox, startSandbox, tiktokTokens } from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const query = (token?: string) =>
  fetch(`${sandbox.url}/v2/post/publish/creator_info/query/`, postJson({}, token));

describe("POST /v2/post/publish/creator_info/query/: success", () => {
  test("a public creator has every privacy level and interactions on", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await query(access_token);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      data: {
        creator_avatar_url: DEMO_TIKTOK.creators.public.avatarUrl,
        creator_username: "sandbox.public",
        creator_nickname: "Sandbox Public",
        privacy_level_options: [
          "PUBLIC_TO_EVERYONE",
          "MUTUAL_FOLLOW_FRIENDS",
          "FOLLOWER_OF_CREATOR",
          "SELF_ONLY",
        ],
        comment_disabled: false,
        duet_disabled: false,
        stitch_disabled: false,
        max_video_post_duration_sec: 600,
      },
      error: { code: "ok", message: "", log_id: expect.any(String) },
    });
  });

  test("the private creator offers SELF_ONLY only", async () => {
    const { access_token } = await tiktokTokens(sandbox.url, DEMO_TIKTOK.creators.private.openId);
    expect((await json(await query(access_token))).data.privacy_level_options).toEqual(["SELF_ONLY"]);
  });
});

describe("POST /v2/post/publish/creator_info/query/: errors", () => {
  test("a token without video.publish is 401 scope_not_authorized", async () => {
    const { access_token } = await tiktokTokens(sandbox.url, DEMO_TIKTOK.creators.public.openId, [
      "user.info.basic",
    ]);
    const res = await query(access_token);
    expect(res.status).toBe(401);
    expect((await json(res)).error.code).toBe("scope_not_authorized");
  });
});

describe("POST /v2/post/publish/creator_info/query/: rate limit", () => {
  test("20 queries a minute per access token, then 429 rate_limit_exceeded; another token has its own 20", async () => {
    await fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" });
    const first = (await tiktokTokens(sandbox.url)).access_token;
    for (let index = 0; index < 20; index += 1) expect((await query(first)).status).toBe(200);
    const limited = await query(first);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeNull();
    expect(await json(limited)).toEqual({
      data: {},
      error: {
        code: "rate_limit_exceeded",
        message: "The API rate limit was exceeded. Please try again later.",
        log_id: expect.any(String),
      },
    });
    const second = (await tiktokTokens(sandbox.url, DEMO_TIKTOK.creators.private.openId)).access_token;
    expect((await query(second)).status).toBe(200);
  });
});

describe("POST /v2/post/publish/creator_info/query/: security", () => {
  test("no token, or an expired one, is 401 access_token_invalid in TikTok's envelope", async () => {
    const none = await query();
    expect(none.status).toBe(401);
    expect(await json(none)).toMatchObject({
      data: {},
      error: { code: "access_token_invalid", log_id: expect.any(String) },
    });
    const { access_token } = await tiktokTokens(sandbox.url);
    await fetch(`${sandbox.url}/_sandbox/tokens/expire`, postJson({ platform: "tiktok" }));
    expect((await json(await query(access_token))).error.code).toBe("access_token_invalid");
  });
});

describe("GET /v2/user/info/", () => {
  const userInfo = (token: string, fields: string) =>
    fetch(`${sandbox.url}/v2/user/info/?fields=${fields}`, { headers: { authorization: `Bearer ${token}` } });

  test("answers the requested fields the granted scopes cover, and leaves out the others", async () => {
    const { access_token } = await tiktokTokens(sandbox.url);
    const res = await userInfo(access_token, "open_id,display_name,username,follower_count");
    expect(res.status).toBe(200);
    const body = (await json(res)) as { data: { user: Record<string, unknown> }; error: { code: string } };
    expect(body.error.code).toBe("ok");
    expect(body.data.user).toEqual({
      open_id: DEMO_TIKTOK.creators.public.openId,
      display_name: expect.any(String),
    });
  });
});
