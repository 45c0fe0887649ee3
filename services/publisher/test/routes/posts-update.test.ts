import { readdir } from "node:fs/promises";
import { Readable } from "node:stream";
import type { Database } from "@app/db";
import { json, test, testDatabaseKind } from "@app/testkit";
import { describe, expect } from "vitest";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { applyPostEdit } from "../../src/store/post-edits.ts";
import { findPost } from "../../src/store/posts.ts";
import { claimDueTargets } from "../../src/store/targets.ts";
import { jpegImage } from "../media/images.ts";
import { buildMp4 } from "../media/mp4-fixture.ts";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

const LATER = "2026-07-01T09:30:00.000Z";

/** Stores `bytes` as an upload would (`med_<name>`), and gives its public URL. */
async function upload(storage: LocalDiskStorage, name: string, bytes: Buffer, contentType: string) {
  const path = `med_${name}`;
  await storage.write(path, Readable.from([bytes]), { contentType, expectedBytes: bytes.length });
  return storage.publicUrl(path);
}

/** An account with a Bluesky connection, and a post scheduled for {@link LATER} on it. */
async function scheduledPost(db: Database) {
  const { accountId, key } = await seedAccount(db);
  const bluesky = await seedConnection(db, accountId, "bluesky");
  const testApp = publisherApp(db);
  const res = await call(testApp.app, "POST", "/api/v1/schedule", key, {
    caption: "Before",
    hashtags: "#one",
    connectionIds: [bluesky],
    scheduledFor: LATER,
  });
  expect(res.status).toBe(200);
  const { postId } = await json(res);
  return { ...testApp, accountId, key, bluesky, postId: postId as string };
}

/** Everything an edit may change, as stored: to show that a refused edit changed nothing. */
async function stored(db: Database, postId: string) {
  const [post] = await db.query(
    "SELECT status, content, connection_ids, platforms, scheduled_for, updated_at FROM publisher.posts WHERE id = $1",
    [postId],
  );
  const targets = await db.query<{ id: string; connection_id: string; due_at: Date; next_attempt_at: Date }>(
    `SELECT id, connection_id, platform, status, due_at, next_attempt_at, claimed_by
     FROM publisher.post_targets WHERE post_id = $1 ORDER BY id`,
    [postId],
  );
  const events = await db.query<{ type: string }>(
    "SELECT type FROM publisher.events WHERE post_id = $1 ORDER BY seq",
    [postId],
  );
  const steps = await db.query<{ step: string; detail: Record<string, unknown> }>(
    "SELECT step, detail FROM publisher.post_steps WHERE post_id = $1 ORDER BY seq",
    [postId],
  );
  return { post, targets, events: events.map((event) => event.type), steps };
}

const patch = (app: Parameters<typeof call>[0], key: string | undefined, postId: string, body: unknown) =>
  call(app, "PATCH", `/api/v1/posts/${postId}`, key, body);

describe("PATCH /api/v1/posts/{id}: success", () => {
  test("a new scheduledFor moves the post and every target, and records post.rescheduled", async ({ db }) => {
    const { app, key, postId } = await scheduledPost(db);
    const res = await patch(app, key, postId, { scheduledFor: "2026-07-02T12:00:00+02:00" });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      id: postId,
      status: "scheduled",
      scheduled_for: "2026-07-02T10:00:00.000Z",
      caption: "Before\n\n#one",
      targets: [{ status: "scheduled" }],
    });
    const { targets, events, steps } = await stored(db, postId);
    expect(steps).toEqual([
      {
        step: "edited",
        detail: { parts: ["scheduledFor"], scheduledFor: { from: LATER, to: "2026-07-02T10:00:00.000Z" } },
      },
    ]);
    for (const target of targets) {
      expect(target.due_at.toISOString()).toBe("2026-07-02T10:00:00.000Z");
      expect(target.next_attempt_at.toISOString()).toBe("2026-07-02T10:00:00.000Z");
    }
    expect(events).toEqual(["post.scheduled", "post.rescheduled"]);
    const [event] = await db.query<{ data: Record<string, unknown> }>(
      "SELECT data FROM publisher.events WHERE post_id = $1 AND type = 'post.rescheduled'",
      [postId],
    );
    expect(event?.data).toEqual({
      postId,
      status: "scheduled",
      scheduledFor: "2026-07-02T10:00:00.000Z",
      previousScheduledFor: LATER,
      dueAt: "2026-07-02T10:00:00.000Z",
      platforms: ["bluesky"],
      targets: [{ targetId: targets[0]?.id, connectionId: targets[0]?.connection_id, platform: "bluesky" }],
    });
  });

  test("a caption alias replaces the caption and keeps the hashtags; hashtags replace them; no event", async ({
    db,
  }) => {
    const { app, key, postId } = await scheduledPost(db);
    expect(await json(await patch(app, key, postId, { text: "After" }))).toMatchObject({
      caption: "After\n\n#one",
      scheduled_for: LATER,
    });
    expect((await json(await patch(app, key, postId, { hashtags: "#two" }))).caption).toBe("After\n\n#two");
    const last = await json(await patch(app, key, postId, { description: "Only this", hashtags: "" }));
    expect(last.caption).toBe("Only this");
    expect((await stored(db, postId)).events).toEqual(["post.scheduled"]);
  });

  test("media replaces all the media, checked and made to fit as for a new post", async ({ db }) => {
    const { app, key, postId, storage } = await scheduledPost(db);
    const photo = await upload(storage, "photo.jpg", await jpegImage(3000, 1000), "image/jpeg");
    const res = await patch(app, key, postId, { mediaItems: [{ url: photo, mediaType: "IMAGE" }] });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      media_items: [{ url: photo, mediaType: "IMAGE" }],
      caption: "Before\n\n#one",
    });
    const files = await readdir(storage.options.dir);
    expect(files.some((name) => name.startsWith("med_photo_fit-bluesky-v1-"))).toBe(true);
  });

  test("targets are replaced: a kept target stays as it is, a dropped one goes, a new one is due at the post's time", async ({
    db,
  }) => {
    const { app, key, postId, accountId, bluesky } = await scheduledPost(db);
    const [before] = (await stored(db, postId)).targets;
    const second = await seedConnection(db, accountId, "bluesky");
    const both = await json(await patch(app, key, postId, { connectionIds: [second, bluesky] }));
    expect(both).toMatchObject({
      connection_ids: [second, bluesky],
      targets: [{ connectionId: second }, { connectionId: bluesky }],
    });
    const afterBoth = (await stored(db, postId)).targets;
    expect(afterBoth.find((target) => target.connection_id === bluesky)?.id).toBe(before?.id);
    expect(afterBoth.find((target) => target.connection_id === second)?.due_at.toISOString()).toBe(LATER);
    const only = await json(await patch(app, key, postId, { connectionIds: [second] }));
    expect(only).toMatchObject({ connection_ids: [second], platforms: ["bluesky"] });
    const after = await stored(db, postId);
    expect(after.targets.map((target) => target.connection_id)).toEqual([second]);
    expect(after.steps.map((step) => step.detail)).toEqual([
      { parts: ["targets"], targets: { added: [second], removed: [] } },
      { parts: ["targets"], targets: { added: [], removed: [bluesky] } },
    ]);
  });

  test("media and targets together: a text post on Bluesky becomes a video on YouTube", async ({ db }) => {
    const { app, key, postId, accountId, storage } = await scheduledPost(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const clip = await upload(storage, "clip.mp4", buildMp4({ durationSec: 5 }), "video/mp4");
    const res = await patch(app, key, postId, { videoUrl: clip, connectionIds: [youtube] });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      video_url: clip,
      platforms: ["youtube"],
      connection_ids: [youtube],
      targets: [{ connectionId: youtube, platform: "youtube", status: "scheduled" }],
    });
  });
});

describe("PATCH /api/v1/posts/{id}: errors", () => {
  test("what a new post would be refused for is refused, and nothing changes", async ({ db }) => {
    const { app, key, postId, accountId, storage } = await scheduledPost(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const reconnect = await seedConnection(db, accountId, "bluesky", "needs_reconnect");
    const before = await stored(db, postId);
    const cases: Array<[unknown, number, Record<string, unknown>]> = [
      [{ caption: "x".repeat(301) }, 400, { error: "CONTENT_NOT_ACCEPTED", platform: "bluesky" }],
      [{ connectionIds: [youtube] }, 400, { error: "CONTENT_NOT_ACCEPTED", connectionId: youtube }],
      [{ connectionIds: ["conn_nope"] }, 400, { error: "INVALID_CONNECTION", reason: "unknown" }],
      [{ connectionIds: [reconnect] }, 400, { error: "INVALID_CONNECTION", reason: "needs_reconnect" }],
      [{ groupIds: ["grp_nope"] }, 400, { error: "VALIDATION_FAILED", issues: [{ path: "groupIds.0" }] }],
      [{ caption: "", hashtags: "" }, 400, { error: "VALIDATION_FAILED", issues: [{ path: "caption" }] }],
      [
        { mediaItems: [{ url: storage.publicUrl("med_never.jpg"), mediaType: "IMAGE" }] },
        400,
        { error: "MEDIA_NOT_FOUND" },
      ],
      [
        { scheduledFor: "2026-06-15T05:00:00Z" },
        400,
        { error: "VALIDATION_FAILED", issues: [{ path: "scheduledFor" }] },
      ],
      [
        { scheduledFor: "2026-07-01T09:30:00" },
        400,
        { error: "VALIDATION_FAILED", issues: [{ path: "scheduledFor" }] },
      ],
      [{}, 400, { error: "VALIDATION_FAILED", issues: [{ path: "" }] }],
      [{ youtubeTitle: "Not editable" }, 400, { error: "VALIDATION_FAILED" }],
    ];
    for (const [body, status, error] of cases) {
      const res = await patch(app, key, postId, body);
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(await json(res)).toMatchObject(error);
    }
    expect(await stored(db, postId)).toEqual(before);
  });

  test("a cancelled post is 400 POST_NOT_SCHEDULED, an unknown one 404", async ({ db }) => {
    const { app, key, postId } = await scheduledPost(db);
    await call(app, "DELETE", "/api/v1/posts", key, { id: postId });
    const cancelled = await patch(app, key, postId, { text: "Too late" });
    expect(cancelled.status).toBe(400);
    expect(await json(cancelled)).toMatchObject({ error: "POST_NOT_SCHEDULED", status: "draft" });
    const unknown = await patch(app, key, "post_nope", { text: "x" });
    expect(unknown.status).toBe(404);
    expect(await json(unknown)).toMatchObject({ error: "POST_NOT_FOUND" });
  });

  test("a worker claimed a target first: 409 POST_PUBLISHING_STARTED, and the post is unchanged", async ({
    db,
  }) => {
    const { app, key, postId } = await scheduledPost(db);
    const claimed = await claimDueTargets(db, {
      workerId: "worker-1",
      limit: 10,
      now: new Date("2026-07-01T09:31:00Z"),
      leaseUntil: new Date("2026-07-01T09:41:00Z"),
      postId,
    });
    expect(claimed).toHaveLength(1);
    const before = await stored(db, postId);
    for (const body of [{ scheduledFor: "2026-08-01T09:00:00Z" }, { text: "Edited" }]) {
      const res = await patch(app, key, postId, body);
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({ error: "POST_PUBLISHING_STARTED", id: postId });
    }
    expect(await stored(db, postId)).toEqual(before);
    await db.query("UPDATE publisher.posts SET status = 'publishing' WHERE id = $1", [postId]);
    const publishing = await patch(app, key, postId, { text: "Edited" });
    expect(await json(publishing)).toMatchObject({ error: "POST_PUBLISHING_STARTED", status: "publishing" });
  });

  test("an edit that waits on a worker's claim still in its transaction loses once the claim commits", async ({
    db,
  }) => {
    const { app, key, postId } = await scheduledPost(db);
    const before = await stored(db, postId);
    let commit!: () => void;
    const committed = new Promise<void>((resolve) => {
      commit = resolve;
    });
    const claim = db.transaction(async (tx) => {
      await tx.query("SELECT id FROM publisher.post_targets WHERE post_id = $1 FOR UPDATE", [postId]);
      await tx.query(
        "UPDATE publisher.post_targets SET status = 'publishing', claimed_by = 'worker-1' WHERE post_id = $1",
        [postId],
      );
      await committed;
    });
    const edit = patch(app, key, postId, { scheduledFor: "2026-08-01T09:00:00Z" });
    await waitForLockWait(db);
    commit();
    await claim;
    const res = await edit;
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ error: "POST_PUBLISHING_STARTED" });
    const after = await stored(db, postId);
    expect(after.post).toEqual(before.post);
    expect(after.events).toEqual(before.events);
  });

  test("an edit checked against a post changed meanwhile writes nothing (POST_EDIT_CONFLICT)", async ({
    db,
  }) => {
    const { app, key, postId, accountId } = await scheduledPost(db);
    const post = await findPost(db, accountId, postId);
    if (!post) throw new Error("the post is gone");
    await patch(app, key, postId, { text: "Edited by someone else" });
    const before = await stored(db, postId);
    const outcome = await applyPostEdit(db, {
      accountId,
      postId,
      parts: ["caption", "scheduledFor"],
      base: { content: post.content, connectionIds: post.connectionIds, scheduledFor: post.scheduledFor },
      content: { ...post.content, caption: "Stale edit" },
      targets: [],
      scheduledFor: new Date("2026-09-01T00:00:00Z"),
      now: new Date("2026-06-15T06:00:00Z"),
    });
    expect(outcome).toEqual({ kind: "changed" });
    expect(await stored(db, postId)).toEqual(before);
  });
});

describe("PATCH /api/v1/posts/{id}: security", () => {
  test("401 without a key, 403 without posts:write, 404 for another account's post (unchanged)", async ({
    db,
  }) => {
    const { app, postId } = await scheduledPost(db);
    const before = await stored(db, postId);
    expect((await patch(app, undefined, postId, { text: "x" })).status).toBe(401);
    const reader = await seedAccount(db, { scopes: ["posts:read"] });
    const forbidden = await patch(app, reader.key, postId, { text: "x" });
    expect(forbidden.status).toBe(403);
    expect(await json(forbidden)).toMatchObject({
      error: "INSUFFICIENT_SCOPE",
      requiredScope: "posts:write",
    });
    const other = await seedAccount(db);
    const foreign = await patch(app, other.key, postId, { text: "x" });
    expect(foreign.status).toBe(404);
    expect(await json(foreign)).toMatchObject({ error: "POST_NOT_FOUND" });
    expect(await stored(db, postId)).toEqual(before);
  });
});

/**
 * On PostgreSQL, waits until a statement is blocked on a row lock (the edit on the claim's
 * targets); PGlite runs one transaction at a time, so there the edit simply waits its turn.
 */
async function waitForLockWait(db: Database): Promise<void> {
  if (testDatabaseKind() !== "postgres") return;
  for (let tries = 0; tries < 200; tries += 1) {
    const [row] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if ((row?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the edit never waited on the claim's locks");
}
