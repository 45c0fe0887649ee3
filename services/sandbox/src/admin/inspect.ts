import { createRoute, jsonResponse, type ServiceApp, z } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { mountedOperations } from "../kit/operations.ts";
import { statusOf } from "../tiktok/publish-status.ts";

const TAGS = ["Sandbox controls"];
const anyJson = (description: string) => jsonResponse(z.record(z.string(), z.unknown()), description);

/** `GET /_sandbox/operations`, `GET|DELETE /_sandbox/requests` and the "what was published" lists. */
export function registerSandboxInspection(app: ServiceApp, ctx: SandboxContext): void {
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/operations",
      operationId: "sandbox_operations",
      tags: TAGS,
      summary: "Every twin operation: the names faults and the request log use",
      responses: { 200: anyJson("The operations") },
    }),
    (c) => {
      const operations = [...(mountedOperations.get(app)?.values() ?? [])].map((spec) => ({
        operation: spec.operation,
        platform: spec.platform,
        method: spec.method.toUpperCase(),
        path: spec.path,
      }));
      return c.json({ operations }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/requests",
      operationId: "sandbox_requests",
      tags: TAGS,
      summary: "The requests the twins received, oldest first (tokens and codes redacted)",
      request: {
        query: z.object({
          platform: z.enum(["google", "youtube", "tiktok", "bluesky"]).optional(),
          operation: z.string().max(100).optional(),
          since: z.coerce
            .number()
            .int()
            .min(0)
            .optional()
            .openapi({ description: "Only entries after this seq" }),
        }),
      },
      responses: { 200: anyJson("The logged requests") },
    }),
    (c) => c.json({ requests: ctx.kit.log.list(c.req.valid("query")) }, 200),
  );
  app.openapi(
    createRoute({
      method: "delete",
      path: "/_sandbox/requests",
      operationId: "sandbox_requests_clear",
      tags: TAGS,
      summary: "Empty the request log",
      responses: { 200: anyJson("Emptied") },
    }),
    (c) => {
      ctx.kit.log.clear();
      return c.json({ cleared: true }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/youtube/videos",
      operationId: "sandbox_youtube_videos",
      tags: TAGS,
      summary: "Videos made by completed upload sessions: metadata, size and SHA-256 of the bytes",
      responses: { 200: anyJson("The videos") },
    }),
    (c) =>
      c.json(
        {
          videos: ctx.google.videos,
          openSessions: [...ctx.google.sessions.values()].filter((s) => !s.video).length,
        },
        200,
      ),
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/tiktok/posts",
      operationId: "sandbox_tiktok_posts",
      tags: TAGS,
      summary: "Every TikTok post initialised, with its current status and the media received",
      responses: { 200: anyJson("The posts") },
    }),
    (c) => {
      const posts = [...ctx.tiktok.posts.values()].map((post) => {
        const view = statusOf(post);
        const uploaded = post.digest && post.plan && post.digest.bytes === post.plan.videoSize;
        return {
          publishId: post.publishId,
          openId: post.openId,
          mode: post.mode,
          mediaType: post.mediaType,
          source: post.source,
          postInfo: post.postInfo,
          status: view.status,
          failReason: view.failReason,
          publicPostId: post.publicPostId,
          media:
            post.source === "FILE_UPLOAD"
              ? [
                  {
                    bytes: post.digest?.bytes ?? 0,
                    sha256: uploaded ? post.digest?.finish() : null,
                    declaredBytes: post.plan?.videoSize,
                  },
                ]
              : post.fetched,
          createdAt: post.createdAt,
          completedAt: post.completedAt,
        };
      });
      return c.json({ posts }, 200);
    },
  );
  app.openapi(
    createRoute({
      method: "get",
      path: "/_sandbox/bluesky/records",
      operationId: "sandbox_bluesky_records",
      tags: TAGS,
      summary: "Records in the PDS twin and the blobs uploaded (size, type, SHA-256)",
      responses: { 200: anyJson("The records and blobs") },
    }),
    (c) =>
      c.json({ records: [...ctx.bluesky.records.values()], blobs: [...ctx.bluesky.blobs.values()] }, 200),
  );
}
