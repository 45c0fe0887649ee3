import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleApiErrors } from "./errors.ts";
import { VIDEO_DELETE_SCOPES, youtubeCaller } from "./youtube-auth.ts";

/**
 * `DELETE /youtube/v3/videos?id=…` (videos.delete, developers.google.com/youtube/v3/docs/videos/delete):
 * a Google access token with a scope the method lists (`youtube`, `youtube.force-ssl`,
 * `youtubepartner`; not `youtube.upload` nor `youtube.readonly`: 403 `insufficientPermissions`),
 * the required `id` (400 `required` "Required parameter: id"), no request body. A video of
 * another channel (or a caller without a channel) is the page's 403 `forbidden`; an id YouTube
 * does not hold is its 404 `videoNotFound`. The video is removed from the twin (videos.list and
 * `/_sandbox/youtube/videos` no longer show it) and the answer is 204 No Content.
 */
export function registerYouTubeDelete(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "youtube.videos.delete",
      platform: "youtube",
      method: "delete",
      path: "/youtube/v3/videos",
      summary: "Delete one of the caller's videos (204), as videos.delete",
      errors: googleApiErrors,
    },
    (c) => {
      const caller = youtubeCaller(c, ctx, VIDEO_DELETE_SCOPES);
      const id = new URL(c.req.url).searchParams.get("id");
      if (!id) throw new PlatformFailure(400, "required", "Required parameter: id");
      const index = ctx.google.videos.findIndex((video) => video.id === id);
      const video = ctx.google.videos[index];
      if (!video) {
        throw new PlatformFailure(
          404,
          "videoNotFound",
          "The video that you are trying to delete cannot be found. Check the value of the id parameter in the request to ensure that it is correct.",
        );
      }
      if (video.channelId !== caller.channel?.id) {
        throw new PlatformFailure(
          403,
          "forbidden",
          "The video that you are trying to delete cannot be deleted. The request might not be properly authorized.",
        );
      }
      ctx.google.videos.splice(index, 1);
      return c.body(null, 204);
    },
  );
}
