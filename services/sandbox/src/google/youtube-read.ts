import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleApiErrors } from "./errors.ts";
import { READ_SCOPES, youtubeCaller } from "./youtube-auth.ts";

/** `GET /youtube/v3/channels?mine=true` and `GET /youtube/v3/videos?id=…`: what a publisher reads back. */
export function registerYouTubeRead(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "youtube.channels.list",
      platform: "youtube",
      method: "get",
      path: "/youtube/v3/channels",
      summary:
        "The signed-in account's channel (mine=true): how a connection learns its channel id and title",
      errors: googleApiErrors,
    },
    (c) => {
      const caller = youtubeCaller(c, ctx, READ_SCOPES);
      if (c.req.query("mine") !== "true") {
        throw new PlatformFailure(
          400,
          "missingRequiredParameter",
          "No filter selected. Expected one of: mine.",
        );
      }
      const items = caller.channel
        ? [{ kind: "youtube#channel", id: caller.channel.id, snippet: { title: caller.channel.title } }]
        : [];
      return c.json({ kind: "youtube#channelListResponse", pageInfo: { totalResults: items.length }, items });
    },
  );
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "youtube.videos.list",
      platform: "youtube",
      method: "get",
      path: "/youtube/v3/videos",
      summary: "Videos by id (the caller's own uploads)",
      errors: googleApiErrors,
    },
    (c) => {
      const caller = youtubeCaller(c, ctx, READ_SCOPES);
      const ids = new Set((c.req.query("id") ?? "").split(",").filter(Boolean));
      if (ids.size === 0)
        throw new PlatformFailure(
          400,
          "missingRequiredParameter",
          "No filter selected. Expected one of: id.",
        );
      const items = [...ctx.google.sessions.values()]
        .filter((session) => session.channelId === caller.channel?.id)
        .flatMap((session) => (session.video && ids.has(session.video.id) ? [session.video] : []));
      return c.json({ kind: "youtube#videoListResponse", pageInfo: { totalResults: items.length }, items });
    },
  );
}
