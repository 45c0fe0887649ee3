import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { encodeCursor } from "../domain/cursor.ts";
import { listPosts } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { pageCursorParam, pageLimitParam } from "./page-query.ts";
import { POST_STATUSES, PostSchema, postView } from "./post-views.ts";

/** Page size bounds of GET /api/v1/posts. */
export const POSTS_PAGE = { min: 1, max: 100, default: 20 } as const;

const ListQuery = z.object({
  status: z.enum(POST_STATUSES).optional(),
  limit: pageLimitParam(POSTS_PAGE),
  cursor: pageCursorParam(),
});

/** GET /api/v1/posts: the account's posts, newest first, a page at a time. */
export function registerPostsList(app: PublisherApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/v1/posts",
    operationId: "posts_list",
    tags: ["Posts"],
    summary: "List your posts, newest first",
    security: API_KEY_SECURITY,
    middleware: apiKeyGuard(deps, "posts:read"),
    request: { query: ListQuery },
    responses: {
      200: jsonResponse(
        z.object({ posts: z.array(PostSchema), nextCursor: z.string().nullable() }).openapi("PostPage"),
        "A page of posts; nextCursor is null on the last page",
      ),
      400: errorResponseSpec("Invalid status, limit or cursor (VALIDATION_FAILED)"),
      ...API_KEY_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { accountId } = c.var.caller;
    const query = c.req.valid("query");
    const after = query.cursor;
    const page = await listPosts(deps.db, {
      accountId,
      status: query.status,
      limit: query.limit ?? POSTS_PAGE.default,
      after,
    });
    return c.json(
      { posts: page.posts.map(postView), nextCursor: page.next ? encodeCursor(page.next) : null },
      200,
    );
  });
}
