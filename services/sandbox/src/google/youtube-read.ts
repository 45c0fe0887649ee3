import { randomBytes } from "node:crypto";
import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleApiErrors } from "./errors.ts";
import { checkParts, LIST_PARTS } from "./video-parts.ts";
import { renderVideo } from "./video-resource.ts";
import { CHANNEL_LIST_SCOPES, VIDEO_LIST_SCOPES, youtubeCaller } from "./youtube-auth.ts";

/** The channel resource's parts (channels.list reference). */
const CHANNEL_PARTS: ReadonlySet<string> = new Set([
  "auditDetails",
  "brandingSettings",
  "contentDetails",
  "contentOwnerDetails",
  "id",
  "localizations",
  "snippet",
  "statistics",
  "status",
  "topicDetails",
]);

/** A repeated, comma-separated query parameter's values. */
const listParam = (values: string[]) =>
  values
    .flatMap((value) => value.split(","))
    .map((item) => item.trim())
    .filter(Boolean);

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
      const caller = youtubeCaller(c, ctx, CHANNEL_LIST_SCOPES);
      const url = new URL(c.req.url);
      const parts = checkParts(url.searchParams.getAll("part"), CHANNEL_PARTS);
      if (url.searchParams.get("mine") !== "true") {
        throw new PlatformFailure(
          400,
          "missingRequiredParameter",
          "No filter selected. Expected one of: mine.",
        );
      }
      const items = caller.channel
        ? [
            {
              kind: "youtube#channel",
              id: caller.channel.id,
              ...(parts.includes("snippet") ? { snippet: { title: caller.channel.title } } : {}),
            },
          ]
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
      summary: "Videos by id (the caller's own uploads), with the requested parts only",
      errors: googleApiErrors,
    },
    (c) => {
      const caller = youtubeCaller(c, ctx, VIDEO_LIST_SCOPES);
      const url = new URL(c.req.url);
      const parts = checkParts(url.searchParams.getAll("part"), LIST_PARTS);
      const ids = listParam(url.searchParams.getAll("id"));
      if (ids.length === 0) {
        throw new PlatformFailure(
          400,
          "missingRequiredParameter",
          "No filter selected. Expected one of: chart, id, myRating.",
        );
      }
      const own = new Map(
        ctx.google.videos
          .filter((video) => video.channelId === caller.channel?.id)
          .map((video) => [video.id, video]),
      );
      const items = [...new Set(ids)].flatMap((id) => {
        const video = own.get(id);
        return video ? [renderVideo(video, parts)] : [];
      });
      return c.json({
        kind: "youtube#videoListResponse",
        etag: randomBytes(12).toString("base64url"),
        pageInfo: { totalResults: items.length, resultsPerPage: items.length },
        items,
      });
    },
  );
}
