import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { mountOperation } from "../kit/operations.ts";
import { tiktokErrors, tiktokOk } from "./errors.ts";
import { takeTikTokRate, tiktokCaller } from "./tiktok-auth.ts";

/**
 * The scope each user field needs (Get User Info reference, fields table; the 2024 scope
 * migration moved `username` and the profile fields to `user.info.profile`). A field the granted
 * scopes do not cover is left out of the answer.
 */
const USER_FIELD_SCOPES: Record<string, string> = {
  username: "user.info.profile",
  bio_description: "user.info.profile",
  profile_deep_link: "user.info.profile",
  is_verified: "user.info.profile",
  follower_count: "user.info.stats",
  following_count: "user.info.stats",
  likes_count: "user.info.stats",
  video_count: "user.info.stats",
};

/** `POST /v2/post/publish/creator_info/query/` and `GET /v2/user/info/`. */
export function registerTikTokCreatorInfo(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.creator_info.query",
      platform: "tiktok",
      method: "post",
      path: "/v2/post/publish/creator_info/query/",
      summary: "The creator's current posting options: privacy levels, interaction switches, longest video",
      description:
        '20 requests a minute per access token (Query Creator Info: "Each user access_token is limited to 20 requests per minute"); past it 429 rate_limit_exceeded.',
      errors: tiktokErrors,
    },
    (c) => {
      const caller = tiktokCaller(c, ctx, ["video.publish"]);
      takeTikTokRate(ctx.limits.tiktokCreatorInfo, caller);
      const { creator } = caller;
      return tiktokOk(c, {
        creator_avatar_url: creator.avatarUrl,
        creator_username: creator.username,
        creator_nickname: creator.nickname,
        privacy_level_options: creator.privacyLevelOptions,
        comment_disabled: creator.commentDisabled,
        duet_disabled: creator.duetDisabled,
        stitch_disabled: creator.stitchDisabled,
        max_video_post_duration_sec: creator.maxVideoPostDurationSec,
      });
    },
  );
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.user.info",
      platform: "tiktok",
      method: "get",
      path: "/v2/user/info/",
      summary:
        "The authorising user: the requested `fields` the granted scopes cover (user.info.basic: open_id, union_id, avatar_url, display_name; user.info.profile: username, …)",
      errors: tiktokErrors,
    },
    (c) => {
      const { creator, grant } = tiktokCaller(c, ctx, ["user.info.basic"]);
      const all: Record<string, string> = {
        open_id: creator.openId,
        union_id: `union${creator.openId}`,
        avatar_url: creator.avatarUrl,
        display_name: creator.nickname,
        username: creator.username,
      };
      const fields = (c.req.query("fields") ?? "open_id").split(",").map((field) => field.trim());
      const granted = (name: string) => grant.scopes.includes(USER_FIELD_SCOPES[name] ?? "user.info.basic");
      const user = Object.fromEntries(
        Object.entries(all).filter(([name]) => fields.includes(name) && granted(name)),
      );
      return tiktokOk(c, { user });
    },
  );
}
