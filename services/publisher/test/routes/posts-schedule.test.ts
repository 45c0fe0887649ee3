import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection, VIDEO } from "../support.ts";

describe("POST /api/v1/schedule: success", () => {
  test("schedules the post at the instant given, answered in UTC with milliseconds", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, publishing } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/schedule", key, {
      videoUrl: VIDEO,
      caption: "Later",
      connectionIds: [youtube, bluesky],
      scheduledFor: "2026-07-01T09:30:00+02:00",
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      success: true,
      postId: expect.stringMatching(/^post_/),
      scheduledFor: "2026-07-01T07:30:00.000Z",
      platforms: ["youtube", "bluesky"],
      connectionIds: [youtube, bluesky],
    });
    const targets = await db.query<{ status: string; due_at: Date; next_attempt_at: Date }>(
      "SELECT status, due_at, next_attempt_at FROM publisher.post_targets WHERE post_id = $1",
      [body.postId],
    );
    expect(targets).toHaveLength(2);
    for (const target of targets) {
      expect(target.status).toBe("scheduled");
      expect(target.due_at.toISOString()).toBe("2026-07-01T07:30:00.000Z");
      expect(target.next_attempt_at.toISOString()).toBe("2026-07-01T07:30:00.000Z");
    }
    expect(publishing.calls).toEqual([]);
  });
});

describe("POST /api/v1/schedule: errors", () => {
  test("a time in the past, now itself, or one without an offset is refused", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, { now: "2026-06-15T06:00:00Z" });
    for (const scheduledFor of [
      "2026-06-15T05:59:59Z",
      "2026-06-15T06:00:00Z",
      "2026-07-01T09:30:00",
      "tomorrow",
    ]) {
      const res = await call(app, "POST", "/api/v1/schedule", key, {
        text: "Hi",
        connectionIds: [bluesky],
        scheduledFor,
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({
        error: "VALIDATION_FAILED",
        issues: [{ path: "scheduledFor" }],
      });
    }
  });

  test("a missing scheduledFor is refused", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/schedule", key, { text: "Hi", connectionIds: [bluesky] });
    expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "scheduledFor" }] });
  });

  test("a youtubeTitle over 100 characters is refused on schedule too", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/schedule", key, {
      videoUrl: VIDEO,
      youtubeTitle: "x".repeat(101),
      connectionIds: [youtube],
      scheduledFor: "2026-07-01T09:30:00Z",
    });
    expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "youtubeTitle" }] });
  });
});

describe("POST /api/v1/schedule: security", () => {
  test("a key with only media:write may not schedule", async ({ db }) => {
    const { key } = await seedAccount(db, { scopes: ["media:write"] });
    const { app } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/schedule", key, {});
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ error: "INSUFFICIENT_SCOPE" });
  });
});
