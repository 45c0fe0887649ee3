import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { API_KEY_RESPONSES, API_KEY_SECURITY, apiKeyGuard } from "../auth/guard.ts";
import { decodeCursor, encodeCursor } from "../domain/cursor.ts";
import { listPosts } from "../store/posts.ts";
import type { PublisherApp, RouteDeps } from "./deps.ts";
import { POST_STATUSES, PostSchema, postView } from "./post-views.ts";
import { textField } from "./text-field.ts";

/** Page size bounds of GET /api/v1/posts. */
export const POSTS_PAGE = { min: 1, max: 100, default: 20 } as const;

const ListQuery = z.object({
  status: z.enum(POST_STATUSES).optional(),
  limit: z
    .string()
    .regex(/^\d{1,6}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(POSTS_PAGE.min).max(POSTS_PAGE.max))
    .optional()
    .openapi({ type: "integer", minimum: 1, maximum: 100, default: 20 }),
  // Decoded here, so that a cursor this service never issued is a fault of the query string.
  cursor: textField()
    .min(1)
    .max(512)
    .transform((text, context) => {
      const position = decodeCursor(text);
      if (!position) context.addIssue({ code: "custom", message: "is not a cursor this service issued" });
      return position ?? z.NEVER;
    })
    .optional()
    .openapi({ type: "string", description: "The `nextCursor` of the previous page" }),
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
