import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FAKE_WORKER_ID } from "../../src/publishing.fake.ts";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

async function publishedPost(db: Parameters<typeof seedAccount>[0]) {
  const owner = await seedAccount(db);
  const bluesky = await seedConnection(db, owner.accountId, "bluesky");
  const youtube = await seedConnection(db, owner.accountId, "youtube");
  const testApp = publisherApp(db, {
    decide: (target) =>
      target.platform === "youtube"
        ? { status: "failed", error: "quotaExceeded: The request cannot be completed" }
        : {
            status: "published",
            platformPostId: "at://did:plc:x/app.bsky.feed.post/1",
            url: "https://bsky.app/x",
          },
  });
  const body = await json(
    await call(testApp.app, "POST", "/api/v1/publish", owner.key, {
      text: "Now",
      mediaUrls: ["https://cdn.example.com/clip.mp4"],
      connectionIds: [bluesky, youtube],
    }),
  );
  return { ...testApp, ...owner, bluesky, youtube, postId: body.postId as string };
}

describe("GET /api/v1/posts/{id}/events: success", () => {
  test("answers the post's events and each target's steps, oldest first", async ({ db }) => {
    const { app, key, postId, bluesky, youtube } = await publishedPost(db);
    const res = await call(app, "GET", `/api/v1/posts/${postId}/events`, key);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.postId).toBe(postId);
    expect(body.truncated).toBe(false);
    const entries = body.history as Array<Record<string, unknown>>;
    expect(entries.map((entry) => entry.type ?? entry.step)).toEqual([
      "post.scheduled",
      "published",
      "target.published",
      "failed",
      "target.failed",
      "post.partial",
    ]);
    expect(entries[0]).toMatchObject({
      kind: "event",
      id: expect.stringMatching(/^evt_/),
      occurredAt: "2026-06-15T06:00:00.000Z",
      data: { postId, status: "scheduled", scheduledFor: null },
    });
    expect(entries[1]).toMatchObject({
      kind: "step",
      targetId: expect.stringMatching(/^tgt_/),
      detail: {
        workerId: FAKE_WORKER_ID,
        platformPostId: "at://did:plc:x/app.bsky.feed.post/1",
        url: "https://bsky.app/x",
      },
    });
    expect(entries[2]).toMatchObject({ data: { connectionId: bluesky, platform: "bluesky" } });
    expect(entries[3]).toMatchObject({
      kind: "step",
      detail: { error: "quotaExceeded: The request cannot be completed", attempts: 1 },
    });
    expect(entries[4]).toMatchObject({ data: { connectionId: youtube, platform: "youtube" } });
  });

  test("a cancelled post's history ends with post.cancelled", async ({ db }) => {
    const owner = await seedAccount(db);
    const bluesky = await seedConnection(db, owner.accountId, "bluesky");
    const { app } = publisherApp(db);
    const { postId } = await json(
      await call(app, "POST", "/api/v1/schedule", owner.key, {
        text: "Later",
        connectionIds: [bluesky],
        scheduledFor: "2026-12-01T09:00:00Z",
      }),
    );
    await call(app, "DELETE", "/api/v1/posts", owner.key, { id: postId });
    const body = await json(await call(app, "GET", `/api/v1/posts/${postId}/events`, owner.key));
    expect(body.history).toMatchObject([
      { kind: "event", type: "post.scheduled" },
      {
        kind: "event",
        type: "post.cancelled",
        data: { postId, status: "draft", scheduledFor: "2026-12-01T09:00:00.000Z" },
      },
    ]);
  });
});

describe("GET /api/v1/posts/{id}/events: errors", () => {
  test("an unknown post is 404 POST_NOT_FOUND, an id with a NUL 400", async ({ db }) => {
    const { app, key } = await publishedPost(db);
    const missing = await call(app, "GET", "/api/v1/posts/post_nope/events", key);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toMatchObject({ error: "POST_NOT_FOUND", id: "post_nope" });
    expect((await call(app, "GET", "/api/v1/posts/post%00x/events", key)).status).toBe(400);
  });
});

describe("GET /api/v1/posts/{id}/events: security", () => {
  test("401 without a key, 403 without posts:read, 404 for another account's post", async ({ db }) => {
    const { app, postId } = await publishedPost(db);
    expect((await call(app, "GET", `/api/v1/posts/${postId}/events`, undefined)).status).toBe(401);
    const uploader = await seedAccount(db, { scopes: ["media:write"] });
    const refused = await call(app, "GET", `/api/v1/posts/${postId}/events`, uploader.key);
    expect(refused.status).toBe(403);
    expect(await json(refused)).toMatchObject({ error: "INSUFFICIENT_SCOPE", requiredScope: "posts:read" });
    const stranger = await seedAccount(db);
    const hidden = await call(app, "GET", `/api/v1/posts/${postId}/events`, stranger.key);
    expect(hidden.status).toBe(404);
    expect(await json(hidden)).toMatchObject({ error: "POST_NOT_FOUND" });
  });
});
