/**
 * Publish-now answers when its wait ends: a target still running is reported as still publishing,
 * never `success: false` (a client that trusts that flag would post again, and the target publishes
 * later anyway), and the top-level answer claims neither success nor failure while any target runs.
 */
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection, VIDEO } from "../support.ts";

describe("POST /api/v1/publish: targets still running when the wait ends", () => {
  test("a running target is still publishing: success null, the post id to poll, no success false", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, { decide: () => ({ status: "publishing" }) });
    const res = await call(app, "POST", "/api/v1/publish", key, { text: "Slow", connectionIds: [bluesky] });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      success: null,
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
  });

  test("one published and one still running: the published one is a success, the answer is not", async ({
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
    expect(body).toMatchObject({ success: null, allPublished: false, status: "publishing" });
    expect(body.platforms.map((p: { success: unknown; status: string }) => [p.success, p.status])).toEqual([
      [null, "publishing"],
      [true, "published"],
    ]);
  });

  test("one failed and one still running: the failure is told, the answer waits for the other", async ({
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
    expect(body).toMatchObject({ success: null, allPublished: false, status: "publishing" });
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
      publishing: { publishNow: () => Promise.reject(new Error("down")), cancel: async () => false },
    });
    const body = await json(
      await call(app, "POST", "/api/v1/publish", key, { text: "Hi", connectionIds: [bluesky] }),
    );
    expect(body).toMatchObject({
      success: null,
      allPublished: false,
      status: "scheduled",
      platforms: [{ connectionId: bluesky, success: null, status: "scheduled" }],
    });
  });
});
