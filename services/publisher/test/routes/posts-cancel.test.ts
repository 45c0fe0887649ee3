import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

async function scheduledPost(db: Parameters<typeof seedAccount>[0]) {
  const { accountId, key } = await seedAccount(db);
  const bluesky = await seedConnection(db, accountId, "bluesky");
  const testApp = publisherApp(db);
  const body = await json(
    await call(testApp.app, "POST", "/api/v1/schedule", key, {
      text: "Later",
      connectionIds: [bluesky],
      scheduledFor: "2026-12-01T09:00:00Z",
    }),
  );
  return { ...testApp, key, postId: body.postId as string };
}

describe("DELETE /api/v1/posts: success", () => {
  test("cancels a scheduled post: it becomes a draft with no schedule and its targets are canceled", async ({
    db,
  }) => {
    const { app, key, postId, publishing } = await scheduledPost(db);
    const res = await call(app, "DELETE", "/api/v1/posts", key, { id: postId });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ success: true });
    expect(publishing.calls).toEqual([{ method: "cancel", postId }]);
    const post = await json(await call(app, "GET", `/api/v1/posts/${postId}`, key));
    expect(post).toMatchObject({ status: "draft", scheduled_for: null, targets: [{ status: "canceled" }] });
  });
});

describe("DELETE /api/v1/posts: errors", () => {
  test("a post that is not scheduled (already cancelled) is 400 POST_NOT_SCHEDULED", async ({ db }) => {
    const { app, key, postId } = await scheduledPost(db);
    await call(app, "DELETE", "/api/v1/posts", key, { id: postId });
    const again = await call(app, "DELETE", "/api/v1/posts", key, { id: postId });
    expect(again.status).toBe(400);
    expect(await json(again)).toMatchObject({ error: "POST_NOT_SCHEDULED", status: "draft" });
  });

  test("a post a worker already claimed is not cancelled", async ({ db }) => {
    const { app, key, postId } = await scheduledPost(db);
    await db.query("UPDATE publisher.post_targets SET claimed_by = 'worker-1' WHERE post_id = $1", [postId]);
    const res = await call(app, "DELETE", "/api/v1/posts", key, { id: postId });
    expect(await json(res)).toMatchObject({ error: "POST_NOT_SCHEDULED" });
    const post = await json(await call(app, "GET", `/api/v1/posts/${postId}`, key));
    expect(post.status).toBe("scheduled");
  });

  test("an unknown id is 404 and a body without id is 400", async ({ db }) => {
    const { app, key } = await scheduledPost(db);
    const missing = await call(app, "DELETE", "/api/v1/posts", key, { id: "post_nope" });
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error: "POST_NOT_FOUND" });
    const invalid = await call(app, "DELETE", "/api/v1/posts", key, {});
    expect(invalid.status).toBe(400);
  });
});

describe("DELETE /api/v1/posts: security", () => {
  test("another account cannot cancel the post, nor can a read-only key", async ({ db }) => {
    const { app, postId, publishing } = await scheduledPost(db);
    const stranger = await seedAccount(db);
    expect((await call(app, "DELETE", "/api/v1/posts", stranger.key, { id: postId })).status).toBe(404);
    const reader = await seedAccount(db, { scopes: ["posts:read"] });
    expect((await call(app, "DELETE", "/api/v1/posts", reader.key, { id: postId })).status).toBe(403);
    expect(publishing.calls).toEqual([]);
  });
});
