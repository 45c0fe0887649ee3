import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { readJsonObject } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { tiktokErrors, tiktokOk } from "./errors.ts";
import { recordStatusFetch } from "./publish-status.ts";
import { takeTikTokRate, tiktokCaller } from "./tiktok-auth.ts";

/** `POST /v2/post/publish/status/fetch/`: where a post stands (30 requests a minute per token). */
export function registerTikTokStatusFetch(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.status.fetch",
      platform: "tiktok",
      method: "post",
      path: "/v2/post/publish/status/fetch/",
      summary: "A post's status: PROCESSING_UPLOAD/DOWNLOAD, SEND_TO_USER_INBOX, PUBLISH_COMPLETE or FAILED",
      errors: tiktokErrors,
    },
    async (c) => {
      const caller = tiktokCaller(c, ctx, ["video.publish", "video.upload"]);
      takeTikTokRate(ctx.limits.tiktokStatus, caller);
      const body = await readJsonObject(
        c,
        () => new PlatformFailure(400, "invalid_params", "The body is not JSON."),
      );
      const publishId = body.publish_id;
      const post = typeof publishId === "string" ? ctx.tiktok.posts.get(publishId) : undefined;
      if (!post || post.openId !== caller.creator.openId) {
        throw new PlatformFailure(400, "invalid_params", "publish_id is not one of this user's posts.");
      }
      const view = recordStatusFetch(post, ctx.kit.clock.now());
      return tiktokOk(c, {
        status: view.status,
        ...(view.failReason ? { fail_reason: view.failReason } : {}),
        publicaly_available_post_id: view.publicPostIds,
        uploaded_bytes: view.uploadedBytes,
        downloaded_bytes: view.downloadedBytes,
      });
    },
  );
}
