import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, IMAGE, publisherApp, seedAccount, seedConnection, VIDEO } from "../support.ts";

async function seedPosts(db: Parameters<typeof seedAccount>[0], count: number) {
  const { accountId, key } = await seedAccount(db);
  const bluesky = await seedConnection(db, accountId, "bluesky");
  const testApp = publisherApp(db);
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    testApp.clock.advance(1000);
    const body = await json(
      await call(testApp.app, "POST", "/api/v1/schedule", key, {
        text: `Post ${n}`,
        connectionIds: [bluesky],
        scheduledFor: "2026-12-01T09:00:00Z",
      }),
    );
    ids.push(body.postId);
  }
  return { ...testApp, key, accountId, bluesky, ids };
}

describe("GET /api/v1/posts: success", () => {
  test("lists the account's posts newest first in the spec's snake_case shape", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, clock } = publisherApp(db);
    const scheduled = await json(
      await call(app, "POST", "/api/v1/schedule", key, {
        videoUrl: VIDEO,
        caption: "Watch",
        hashtags: "#new",
        youtubeTitle: "Title",
        youtubeDescription: "Desc",
        youtubePrivacy: "unlisted",
        connectionIds: [youtube],
        scheduledFor: "2026-12-01T09:00:00Z",
      }),
    );
    const res = await call(app, "GET", "/api/v1/posts", key);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      posts: [
        {
          id: scheduled.postId,
          video_url: VIDEO,
          media_items: [{ url: VIDEO, mediaType: "VIDEO" }],
          caption: "Watch\n\n#new",
          youtube_title: "Title",
          youtube_description: "Desc",
          youtube_privacy: "unlisted",
          status: "scheduled",
          scheduled_for: "2026-12-01T09:00:00.000Z",
          platforms: ["youtube"],
          connection_ids: [youtube],
          created_at: clock.now().toISOString(),
        },
      ],
      nextCursor: null,
    });
  });

  test("pages with an opaque cursor until nextCursor is null, each post once", async ({ db }) => {
    const { app, key, ids } = await seedPosts(db, 5);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const path: string = `/api/v1/posts?limit=2${cursor ? `&cursor=${cursor}` : ""}`;
      const page = await json(await call(app, "GET", path, key));
      seen.push(...page.posts.map((p: { id: string }) => p.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual([...ids].reverse());
  });

  test("the default page holds 20 posts", async ({ db }) => {
    const { app, key } = await seedPosts(db, 21);
    const page = await json(await call(app, "GET", "/api/v1/posts", key));
    expect(page.posts).toHaveLength(20);
    expect(page.nextCursor).toEqual(expect.any(String));
  });

  test("status filters the list; other accounts' posts never appear", async ({ db }) => {
    const { app, key, ids } = await seedPosts(db, 2);
    await seedPosts(db, 1);
    await call(app, "DELETE", "/api/v1/posts", key, { id: ids[0] });
    const drafts = await json(await call(app, "GET", "/api/v1/posts?status=draft", key));
    expect(drafts.posts.map((p: { id: string }) => p.id)).toEqual([ids[0]]);
    const all = await json(await call(app, "GET", "/api/v1/posts", key));
    expect(all.posts).toHaveLength(2);
  });
});

describe("GET /api/v1/posts: errors", () => {
  test("a bad status, a limit of 0 or 101, and a forged cursor are 400s", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    for (const query of ["status=cancelled", "limit=0", "limit=101", "limit=ten", "cursor=forged"]) {
      const res = await call(app, "GET", `/api/v1/posts?${query}`, key);
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("VALIDATION_FAILED");
    }
  });
});

describe("GET /api/v1/posts/{id}: success and errors", () => {
  test("answers the post with each target's outcome", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, {
      decide: (t) =>
        t.platform === "tiktok"
          ? { status: "failed", error: "spam_risk_too_many_posts" }
          : { status: "published", platformPostId: "3kabc", url: "https://bsky.app/profile/x/post/3kabc" },
    });
    const published = await json(
      await call(app, "POST", "/api/v1/publish", key, {
        mediaUrls: [IMAGE(1), IMAGE(2)],
        connectionIds: [tiktok, bluesky],
      }),
    );
    const res = await call(app, "GET", `/api/v1/posts/${published.postId}`, key);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      id: published.postId,
      status: "partial",
      video_url: null,
      scheduled_for: null,
    });
    expect(body.targets).toEqual([
      {
        connectionId: tiktok,
        platform: "tiktok",
        status: "failed",
        platformPostId: null,
        url: null,
        error: "spam_risk_too_many_posts",
        attempts: 1,
        deletedAt: null,
      },
      {
        connectionId: bluesky,
        platform: "bluesky",
        status: "published",
        platformPostId: "3kabc",
        url: "https://bsky.app/profile/x/post/3kabc",
        error: null,
        attempts: 1,
        deletedAt: null,
      },
    ]);
  });

  test("an unknown id, or another account's post, is 404 POST_NOT_FOUND", async ({ db }) => {
    const { app, ids } = await seedPosts(db, 1);
    const stranger = await seedAccount(db);
    for (const id of ["post_nope", ids[0]]) {
      const res = await call(app, "GET", `/api/v1/posts/${id}`, stranger.key);
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ error: "POST_NOT_FOUND" });
    }
  });
});

describe("GET /api/v1/posts: security", () => {
  test("listing and reading need posts:read; an upload-only key gets 403 and no key 401", async ({ db }) => {
    const { app, ids } = await seedPosts(db, 1);
    const uploader = await seedAccount(db, { scopes: ["media:write"] });
    expect((await call(app, "GET", "/api/v1/posts", uploader.key)).status).toBe(403);
    expect((await call(app, "GET", `/api/v1/posts/${ids[0]}`, uploader.key)).status).toBe(403);
    expect((await call(app, "GET", "/api/v1/posts", undefined)).status).toBe(401);
  });
});
