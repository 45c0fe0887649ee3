/**
 * Publish-now answers when its wait ends: a target still running is reported as still publishing,
 * never `success: false` (a client that trusts that flag would post again, and the target publishes
 * later anyway). The top-level `success` is always a boolean, as the spec gives it: the request was
 * handled and no target has failed (null was falsy: `if (!r.success) retry()` posted again), false
 * only once a target failed; `allPublished` stays false while any target runs.
 */
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { FakeOutcome } from "../../src/publishing.fake.ts";
import { call, publisherApp, seedAccount, seedConnection, VIDEO } from "../support.ts";

describe("POST /api/v1/publish: targets still running when the wait ends", () => {
  test("a running target is still publishing: the answer a success, the target's success null, the post id to poll", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, { decide: () => ({ status: "publishing" }) });
    const res = await call(app, "POST", "/api/v1/publish", key, { text: "Slow", connectionIds: [bluesky] });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      success: true,
      allPublished: false,
      status: "publishing",
      postId: expect.stringMatching(/^post_/),
      message: expect.stringContaining(`GET /api/v1/posts/${body.postId}`),
      platforms: [
        {
          connectionId: bluesky,
          platform: "bluesky",
          success: null,
          status: "publishing",
          platformPostId: null,
          url: null,
          error: null,
        },
      ],
    });
    expect(JSON.stringify(body)).not.toContain('"success":false');
    expect(JSON.stringify(body)).not.toContain('"success":null,"allPublished"');
  });

  test("the top-level success is a boolean whatever the targets' states", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const outcomes: FakeOutcome[] = [
      { status: "publishing" },
      { status: "published", platformPostId: "at://x" },
      { status: "failed", error: "refused" },
    ];
    for (const outcome of outcomes) {
      const { status } = outcome;
      const { app } = publisherApp(db, { decide: () => outcome });
      const body = await json(
        await call(app, "POST", "/api/v1/publish", key, { text: status, connectionIds: [bluesky] }),
      );
      expect(typeof body.success, status).toBe("boolean");
      expect(body.success, status).toBe(status !== "failed");
    }
  });

  test("one published and one still running: both the answer and the published one are a success, not all published", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, {
      decide: (t) =>
        t.platform === "youtube"
          ? { status: "publishing" }
          : { status: "published", platformPostId: "at://x" },
    });
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, { videoUrl: VIDEO, connectionIds: [youtube, bluesky] }),
    );
    expect(body).toMatchObject({ success: true, allPublished: false, status: "publishing" });
    expect(body.platforms.map((p: { success: unknown; status: string }) => [p.success, p.status])).toEqual([
      [null, "publishing"],
      [true, "published"],
    ]);
  });

  test("one failed and one still running: the answer is a failure, the other still publishing", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, {
      decide: (t) =>
        t.platform === "youtube" ? { status: "failed", error: "quota" } : { status: "publishing" },
    });
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, { videoUrl: VIDEO, connectionIds: [youtube, bluesky] }),
    );
    expect(body).toMatchObject({ success: false, allPublished: false, status: "publishing" });
    expect(body.message).toContain(`GET /api/v1/posts/${body.postId}`);
    expect(body.platforms).toMatchObject([
      { platform: "youtube", success: false, status: "failed", error: "quota" },
      { platform: "bluesky", success: null, status: "publishing", error: null },
    ]);
  });

  test("every target settled: success says whether any failed, and status is the post's", async ({ db }) => {
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
    expect(body).toMatchObject({ success: false, allPublished: false, status: "partial" });
    expect(body.message).not.toContain("GET /api/v1/posts");
  });

  test("when publishing throws, the stored targets are reported pending for the workers, not failed", async ({
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
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, { text: "Hi", connectionIds: [bluesky] }),
    );
    expect(body).toMatchObject({
      success: true,
      allPublished: false,
      status: "scheduled",
      platforms: [{ connectionId: bluesky, success: null, status: "scheduled" }],
    });
  });
});
