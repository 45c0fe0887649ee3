import type { Database } from "@app/db";
import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { RetryAnswerSchema } from "../../src/routes/posts_retry.ts";
import { postHistory } from "../../src/store/events.ts";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

type TargetRow = {
  connectionId: string;
  status: string;
  attempts: number;
  error: string | null;
  platformHandle: Record<string, unknown> | null;
  nextAttemptAt: Date;
};

const targetsOf = (db: Database, postId: string) =>
  db.query<TargetRow>(
    `SELECT connection_id AS "connectionId", status, attempts, error, platform_handle AS "platformHandle",
       next_attempt_at AS "nextAttemptAt"
     FROM publisher.post_targets WHERE post_id = $1 ORDER BY platform`,
    [postId],
  );

const setHandle = (db: Database, connectionId: string, handle: Record<string, unknown>) =>
  db.query("UPDATE publisher.post_targets SET platform_handle = $2::jsonb WHERE connection_id = $1", [
    connectionId,
    JSON.stringify(handle),
  ]);

/**
 * A post published now to YouTube and TikTok (and Bluesky, published) where the fake failed the
 * YouTube and TikTok targets: the post is partial, its failed targets without handles.
 */
async function partlyFailedPost(db: Database) {
  const { accountId, key } = await seedAccount(db);
  const youtube = await seedConnection(db, accountId, "youtube");
  const tiktok = await seedConnection(db, accountId, "tiktok");
  const bluesky = await seedConnection(db, accountId, "bluesky");
  const testApp = publisherApp(db, {
    decide: (target) =>
      target.platform === "bluesky"
        ? { status: "published", platformPostId: "at://did:plc:x/app.bsky.feed.post/3kabc" }
        : { status: "failed", error: `quotaExceeded: ${target.platform} refused` },
  });
  const body = await json(
    await call(testApp.app, "POST", "/api/v1/publish", key, {
      videoUrl: "https://cdn.example.com/clip.mp4",
      caption: "Retry me",
      connectionIds: [youtube, tiktok, bluesky],
    }),
  );
  const postId = body.postId as string;
  return { ...testApp, accountId, key, postId, youtube, tiktok, bluesky };
}

const retry = (app: Parameters<typeof call>[0], key: string | undefined, postId: string, body?: unknown) =>
  call(app, "POST", `/api/v1/posts/${postId}/retry`, key, body);

describe("POST /api/v1/posts/{id}/retry: success", () => {
  test("failed targets whose state proves nothing reached the platform are scheduled again, due now, attempts afresh", async ({
    db,
  }) => {
    const { app, key, postId, youtube, tiktok, clock } = await partlyFailedPost(db);
    const before = await targetsOf(db, postId);
    expect(before.map((target) => [target.status, target.attempts])).toEqual([
      ["published", 1],
      ["failed", 1],
      ["failed", 1],
    ]);
    const res = await retry(app, key, postId);
    expect(res.status).toBe(200);
    expect(await jsonOf(res, RetryAnswerSchema)).toEqual({
      success: true,
      postId,
      status: "publishing",
      retried: [
        {
          connectionId: youtube,
          platform: "youtube",
          evidence: "nothing_sent",
          forced: false,
          handleDropped: false,
        },
        {
          connectionId: tiktok,
          platform: "tiktok",
          evidence: "nothing_sent",
          forced: false,
          handleDropped: false,
        },
      ],
    });
    const after = await targetsOf(db, postId);
    expect(after.map((target) => [target.status, target.attempts, target.error])).toEqual([
      ["published", 1, null],
      ["scheduled", 0, null],
      ["scheduled", 0, null],
    ]);
    for (const target of after.filter((row) => row.status === "scheduled"))
      expect(target.nextAttemptAt.getTime()).toBe(clock.now().getTime());
    const post = await json(await call(app, "GET", `/api/v1/posts/${postId}`, key));
    expect(post.status).toBe("publishing");
  });

  test("a post that failed everywhere is scheduled again; the history records the retry and post.scheduled tells it", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app } = publisherApp(db, { decide: () => ({ status: "failed", error: "quotaExceeded: no" }) });
    const { postId } = await json(
      await call(app, "POST", "/api/v1/publish", key, {
        videoUrl: "https://cdn.example.com/clip.mp4",
        connectionIds: [youtube],
      }),
    );
    expect((await json(await retry(app, key, postId, {}))).status).toBe("scheduled");
    const history = await postHistory(db, accountId, postId);
    const steps = history?.entries.filter(
      (entry) => entry.kind === "step" && entry.step === "retry_requested",
    );
    expect(steps).toEqual([
      expect.objectContaining({
        detail: expect.objectContaining({
          evidence: "nothing_sent",
          forced: false,
          reason: null,
          previousError: "quotaExceeded: no",
          previousAttempts: 1,
        }),
      }),
    ]);
    const events = history?.entries
      .filter((entry) => entry.kind === "event")
      .map((entry) => entry.kind === "event" && entry.type);
    expect(events?.slice(-2)).toEqual(["post.failed", "post.scheduled"]);
    expect(history?.entries.at(-1)).toMatchObject({
      data: {
        postId,
        status: "scheduled",
        retry: { forced: false, reason: null },
        targets: [{ connectionId: youtube }],
      },
    });
  });

  test("a Bluesky target whose record key was saved runs again without force, keeping the key", async ({
    db,
  }) => {
    const { app, key, postId, youtube, bluesky } = await partlyFailedPost(db);
    const handle = { rkey: "3kabcdefghi22", repo: "did:plc:x", createdAt: "2026-06-15T06:00:00.000Z" };
    await db.query(
      "UPDATE publisher.post_targets SET status = 'failed', platform_handle = $2::jsonb WHERE connection_id = $1",
      [bluesky, JSON.stringify(handle)],
    );
    const res = await retry(app, key, postId, { connectionIds: [bluesky, youtube] });
    expect(res.status).toBe(200);
    expect((await json(res)).retried).toEqual([
      {
        connectionId: youtube,
        platform: "youtube",
        evidence: "nothing_sent",
        forced: false,
        handleDropped: false,
      },
      {
        connectionId: bluesky,
        platform: "bluesky",
        evidence: "same_copy",
        forced: false,
        handleDropped: false,
      },
    ]);
    const [row] = (await targetsOf(db, postId)).filter((target) => target.connectionId === bluesky);
    expect(row).toMatchObject({ status: "scheduled", platformHandle: handle });
  });

  test("force with a reason runs an unknown outcome again from scratch, and the history keeps the reason", async ({
    db,
  }) => {
    const { app, key, postId, tiktok, accountId } = await partlyFailedPost(db);
    await setHandle(db, tiktok, { phase: "initiating", kind: "photo" });
    const res = await retry(app, key, postId, {
      force: true,
      reason: "Checked the TikTok profile: the photos are not there.",
    });
    expect(res.status).toBe(200);
    expect((await json(res)).retried).toContainEqual({
      connectionId: tiktok,
      platform: "tiktok",
      evidence: "unknown",
      forced: true,
      handleDropped: true,
    });
    const [row] = (await targetsOf(db, postId)).filter((target) => target.connectionId === tiktok);
    expect(row).toMatchObject({ status: "scheduled", platformHandle: null });
    const history = await postHistory(db, accountId, postId);
    expect(history?.entries).toContainEqual(
      expect.objectContaining({
        kind: "step",
        step: "retry_requested",
        detail: expect.objectContaining({
          evidence: "unknown",
          forced: true,
          handleDropped: true,
          reason: "Checked the TikTok profile: the photos are not there.",
        }),
      }),
    );
    expect(history?.entries.at(-2)).toMatchObject({
      kind: "event",
      type: "post.scheduled",
      data: { retry: { forced: true, reason: "Checked the TikTok profile: the photos are not there." } },
    });
  });
});

describe("POST /api/v1/posts/{id}/retry: errors", () => {
  test("a target whose outcome is unknown is refused with PUBLISH_OUTCOME_UNKNOWN naming it, and nothing changes", async ({
    db,
  }) => {
    const { app, key, postId, youtube, tiktok, accountId } = await partlyFailedPost(db);
    await setHandle(db, youtube, { sessionUri: "sealed-session" });
    await setHandle(db, tiktok, { phase: "processing", kind: "video", publishId: "v_pub_1" });
    const before = await targetsOf(db, postId);
    const res = await retry(app, key, postId);
    expect(res.status).toBe(409);
    const body = await json(res);
    expect(body).toMatchObject({
      error: "PUBLISH_OUTCOME_UNKNOWN",
      postId,
      targets: [
        {
          connectionId: youtube,
          platform: "youtube",
          explanation: expect.stringContaining("upload session"),
        },
        {
          connectionId: tiktok,
          platform: "tiktok",
          explanation: expect.stringContaining("may be on the account"),
        },
      ],
    });
    expect(body.message).toContain(youtube);
    expect(await targetsOf(db, postId)).toEqual(before);
    const history = await postHistory(db, accountId, postId);
    expect(history?.entries.some((entry) => entry.kind === "step" && entry.step === "retry_requested")).toBe(
      false,
    );
  });

  test("the clean targets can still be retried alone, by connectionIds", async ({ db }) => {
    const { app, key, postId, youtube, tiktok } = await partlyFailedPost(db);
    await setHandle(db, tiktok, { phase: "initiating", kind: "photo" });
    const res = await retry(app, key, postId, { connectionIds: [youtube] });
    expect(res.status).toBe(200);
    const rows = await targetsOf(db, postId);
    expect(rows.map((row) => [row.connectionId, row.status])).toEqual([
      [expect.any(String), "published"],
      [tiktok, "failed"],
      [youtube, "scheduled"],
    ]);
  });

  test("force without a reason is 400 VALIDATION_FAILED on reason; a reason too long too", async ({ db }) => {
    const { app, key, postId, tiktok } = await partlyFailedPost(db);
    await setHandle(db, tiktok, { phase: "initiating", kind: "photo" });
    const bare = await retry(app, key, postId, { force: true });
    expect(bare.status).toBe(400);
    expect(await json(bare)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "reason" }] });
    const long = await retry(app, key, postId, { force: true, reason: "x".repeat(501) });
    expect(long.status).toBe(400);
    expect((await targetsOf(db, postId)).filter((row) => row.status === "failed")).toHaveLength(2);
  });

  test("a post with nothing failed is 409 NOTHING_TO_RETRY saying each target's status", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const { postId } = await json(
      await call(app, "POST", "/api/v1/publish", key, { text: "Fine", connectionIds: [bluesky] }),
    );
    const res = await retry(app, key, postId);
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({
      error: "NOTHING_TO_RETRY",
      message: `Only failed targets can be retried: ${bluesky} is published.`,
      targets: [{ connectionId: bluesky, platform: "bluesky", status: "published" }],
    });
  });

  test("connectionIds naming a target that did not fail, or no target of the post, are 409 NOTHING_TO_RETRY", async ({
    db,
  }) => {
    const { app, key, postId, youtube, bluesky } = await partlyFailedPost(db);
    const published = await retry(app, key, postId, { connectionIds: [youtube, bluesky] });
    expect(published.status).toBe(409);
    expect(await json(published)).toMatchObject({
      error: "NOTHING_TO_RETRY",
      targets: [{ connectionId: bluesky }],
    });
    const stranger = await retry(app, key, postId, { connectionIds: ["conn_elsewhere"] });
    expect(await json(stranger)).toMatchObject({
      error: "NOTHING_TO_RETRY",
      unknownConnectionIds: ["conn_elsewhere"],
    });
    expect((await targetsOf(db, postId)).filter((row) => row.status === "failed")).toHaveLength(2);
  });

  test("a target whose connection needs reconnecting is 400 INVALID_CONNECTION: it would only fail again", async ({
    db,
  }) => {
    const { app, key, postId, youtube } = await partlyFailedPost(db);
    await db.query("UPDATE publisher.connections SET status = 'needs_reconnect' WHERE id = $1", [youtube]);
    const res = await retry(app, key, postId);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "INVALID_CONNECTION",
      connectionId: youtube,
      platform: "youtube",
      reason: "needs_reconnect",
    });
    expect((await targetsOf(db, postId)).filter((row) => row.status === "failed")).toHaveLength(2);
  });

  test("two retries at once run the targets once: one answers 200, the other 409 NOTHING_TO_RETRY", async ({
    db,
  }) => {
    const { app, key, postId, accountId } = await partlyFailedPost(db);
    const answers = await Promise.all([retry(app, key, postId), retry(app, key, postId)]);
    expect(answers.map((res) => res.status).sort()).toEqual([200, 409]);
    const history = await postHistory(db, accountId, postId);
    const retries = history?.entries.filter(
      (entry) => entry.kind === "step" && entry.step === "retry_requested",
    );
    expect(retries).toHaveLength(2);
    const scheduled = history?.entries.filter(
      (entry) => entry.kind === "event" && entry.type === "post.scheduled" && "retry" in entry.data,
    );
    expect(scheduled).toHaveLength(1);
  });
});

describe("POST /api/v1/posts/{id}/retry: security", () => {
  test("without a key 401; with a read-only key 403; another account's post 404, and nothing runs", async ({
    db,
  }) => {
    const { app, postId, accountId } = await partlyFailedPost(db);
    expect((await retry(app, undefined, postId)).status).toBe(401);
    const reader = await seedAccount(db, { scopes: ["posts:read"] });
    const readOnly = await retry(app, reader.key, postId);
    expect(readOnly.status).toBe(403);
    expect(await json(readOnly)).toMatchObject({ error: "INSUFFICIENT_SCOPE", requiredScope: "posts:write" });
    const stranger = await seedAccount(db);
    const foreign = await retry(app, stranger.key, postId);
    expect(foreign.status).toBe(404);
    expect(await json(foreign)).toMatchObject({ error: "POST_NOT_FOUND" });
    expect((await targetsOf(db, postId)).filter((row) => row.status === "failed")).toHaveLength(2);
    const history = await postHistory(db, accountId, postId);
    expect(history?.entries.some((entry) => entry.kind === "step" && entry.step === "retry_requested")).toBe(
      false,
    );
  });
});
