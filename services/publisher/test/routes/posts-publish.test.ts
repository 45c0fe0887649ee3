import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, IMAGE, publisherApp, seedAccount, seedConnection, VIDEO } from "../support.ts";

describe("POST /api/v1/publish: success", () => {
  test("publishes to every target and answers each platform's outcome", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, publishing } = publisherApp(db, { publishTimeoutMs: 5000 });
    const res = await call(app, "POST", "/api/v1/publish", key, {
      videoUrl: VIDEO,
      caption: "Hi",
      connectionIds: [youtube, tiktok],
    });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      success: true,
      allPublished: true,
      status: "published",
      postId: expect.stringMatching(/^post_/),
      message: "Published to every target.",
      platforms: [
        {
          connectionId: youtube,
          platform: "youtube",
          success: true,
          status: "published",
          platformPostId: `fake-youtube-${youtube}`,
          url: null,
          error: null,
        },
        {
          connectionId: tiktok,
          platform: "tiktok",
          success: true,
          status: "published",
          platformPostId: `fake-tiktok-${tiktok}`,
          url: null,
          error: null,
        },
      ],
    });
    expect(publishing.calls).toEqual([{ method: "publishNow", postId: body.postId, timeoutMs: 5000 }]);
  });

  test("stores the post and one scheduled target per connection, due now, before publishing", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, clock } = publisherApp(db, { decide: () => ({ status: "publishing" }) });
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, { text: "Just text", connectionIds: [bluesky] }),
    );
    const [target] = await db.query<{ due_at: Date; next_attempt_at: Date }>(
      "SELECT due_at, next_attempt_at FROM publisher.post_targets WHERE post_id = $1",
      [body.postId],
    );
    expect(target?.due_at).toEqual(clock.now());
    expect(target?.next_attempt_at).toEqual(clock.now());
    // Still running when the wait ended: not a failure (see publish-now-unfinished-targets.test.ts).
    expect(body).toMatchObject({
      success: true,
      allPublished: false,
      platforms: [{ success: null, status: "publishing", platformPostId: null }],
    });
  });

  test("a failed target makes success false and allPublished false while the other succeeds", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, {
      decide: (t) =>
        t.platform === "youtube"
          ? { status: "failed", error: "quota" }
          : { status: "published", platformPostId: "at://x" },
    });
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, { videoUrl: VIDEO, connectionIds: [youtube, bluesky] }),
    );
    expect(body.success).toBe(false);
    expect(body.allPublished).toBe(false);
    expect(body.platforms.map((p: { success: boolean }) => p.success)).toEqual([false, true]);
  });

  test("groupIds add their connections to the targets, each once", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const a = await seedConnection(db, accountId, "bluesky");
    const b = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const group = await json(
      await call(app, "POST", "/api/v1/groups", key, { name: "All", connectionIds: [a, b] }),
    );
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, {
        text: "Hi",
        connectionIds: [a],
        groupIds: [group.group.id],
      }),
    );
    expect(body.platforms.map((p: { connectionId: string }) => p.connectionId)).toEqual([a, b]);
  });

  test("when publishing throws, the post stays for the workers and the answer shows its targets", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, {
      publishing: {
        publishNow: () => Promise.reject(new Error("down")),
        cancel: async () => false,
        removePublished: () => Promise.reject(new Error("down")),
      },
    });
    const res = await call(app, "POST", "/api/v1/publish", key, { text: "Hi", connectionIds: [bluesky] });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({
      success: true,
      allPublished: false,
      platforms: [{ connectionId: bluesky, success: null, status: "scheduled" }],
    });
  });
});

describe("POST /api/v1/publish: errors", () => {
  test("text only to YouTube is refused naming the target", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, publishing } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/publish", key, {
      caption: "Words",
      connectionIds: [youtube],
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "CONTENT_NOT_ACCEPTED",
      connectionId: youtube,
      platform: "youtube",
    });
    expect(publishing.calls).toEqual([]);
    const [{ count }] = (await db.query<{ count: number }>(
      "SELECT count(*)::int AS count FROM publisher.posts WHERE account_id = $1",
      [accountId],
    )) as [{ count: number }];
    expect(count).toBe(0);
  });

  test("a TikTok carousel with a video in it is refused", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/publish", key, {
      mediaUrls: [IMAGE(1), VIDEO],
      connectionIds: [tiktok],
    });
    expect(await json(res)).toMatchObject({ error: "CONTENT_NOT_ACCEPTED", platform: "tiktok" });
  });

  test("a connection of another account, or one needing reconnection, is refused as invalid", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const other = await seedAccount(db);
    const foreign = await seedConnection(db, other.accountId, "bluesky");
    const stale = await seedConnection(db, accountId, "bluesky", "needs_reconnect");
    const { app } = publisherApp(db);
    const first = await call(app, "POST", "/api/v1/publish", key, { text: "Hi", connectionIds: [foreign] });
    expect(first.status).toBe(400);
    expect(await json(first)).toMatchObject({
      error: "INVALID_CONNECTION",
      connectionId: foreign,
      reason: "unknown",
    });
    const second = await call(app, "POST", "/api/v1/publish", key, { text: "Hi", connectionIds: [stale] });
    expect(await json(second)).toMatchObject({
      error: "INVALID_CONNECTION",
      connectionId: stale,
      reason: "needs_reconnect",
    });
  });

  test("missing connections, a bad enum, 21 connections and a malformed body are 400s", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const cases: Array<[unknown, string]> = [
      [{ text: "Hi" }, "VALIDATION_FAILED"],
      [{ videoUrl: VIDEO, connectionIds: [bluesky], youtubePrivacy: "secret" }, "VALIDATION_FAILED"],
      [{ text: "Hi", connectionIds: Array.from({ length: 21 }, (_, i) => `conn_${i}`) }, "VALIDATION_FAILED"],
      [{ videoUrl: "ftp://x/y.mp4", connectionIds: [bluesky] }, "VALIDATION_FAILED"],
      ["{not json", "MALFORMED_JSON"],
    ];
    for (const [body, code] of cases) {
      const res = await call(app, "POST", "/api/v1/publish", key, body);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe(code);
    }
  });

  test("an unknown group is refused with the index of its id", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const res = await call(app, "POST", "/api/v1/publish", key, { text: "Hi", groupIds: ["grp_nope"] });
    expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "groupIds.0" }] });
  });

  test("media at this service's URL that was never uploaded is refused", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage } = publisherApp(db);
    const url = storage.publicUrl("med_missing.mp4");
    const res = await call(app, "POST", "/api/v1/publish", key, { videoUrl: url, connectionIds: [bluesky] });
    expect(await json(res)).toMatchObject({ error: "MEDIA_NOT_FOUND", url });
  });

  test("a TikTok privacy level the creator cannot use is refused when creator_info is available", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app } = publisherApp(db, {
      tiktokCreator: async () => ({ privacyLevelOptions: ["SELF_ONLY"] }),
    });
    const res = await call(app, "POST", "/api/v1/publish", key, { videoUrl: VIDEO, connectionIds: [tiktok] });
    expect(await json(res)).toMatchObject({
      error: "CONTENT_NOT_ACCEPTED",
      connectionId: tiktok,
      allowedPrivacy: ["SELF_ONLY"],
    });
    const ok = await call(app, "POST", "/api/v1/publish", key, {
      videoUrl: VIDEO,
      connectionIds: [tiktok],
      tiktokPrivacy: "SELF_ONLY",
    });
    expect(ok.status).toBe(200);
  });

  test("GET on the publish path is 405 with Allow", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const res = await call(app, "GET", "/api/v1/publish", key);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("POST");
  });
});

describe("POST /api/v1/publish: security", () => {
  test("without a key, with a wrong key, or with a read-only key nothing is created", async ({ db }) => {
    const { accountId } = await seedAccount(db);
    const readOnly = await seedAccount(db, { scopes: ["posts:read"] });
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, publishing } = publisherApp(db);
    const payload = { text: "Hi", connectionIds: [bluesky] };
    expect((await call(app, "POST", "/api/v1/publish", undefined, payload)).status).toBe(401);
    expect((await call(app, "POST", "/api/v1/publish", "pk_wrong", payload)).status).toBe(401);
    const forbidden = await call(app, "POST", "/api/v1/publish", readOnly.key, payload);
    expect(forbidden.status).toBe(403);
    expect(await json(forbidden)).toMatchObject({
      error: "INSUFFICIENT_SCOPE",
      requiredScope: "posts:write",
    });
    expect(publishing.calls).toEqual([]);
  });
});
