import { type ServiceApp, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { DEMO_GOOGLE } from "@app/sandbox/demo";
import { json, jsonOf, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createApp } from "../../src/app.ts";
import { completeConnect, startConnect } from "../../src/connections/connect-flows.ts";
import type { PostContent } from "../../src/contracts/post.ts";
import { approveOnSandbox, type PublisherDemo, sandboxAdapters, sandboxIdentity } from "../../src/demo.ts";
import { createGoogleOAuthClient, YOUTUBE_UPLOAD_SCOPE } from "../../src/platforms/youtube/google-oauth.ts";
import { createYouTubeClient } from "../../src/platforms/youtube/youtube-client.ts";
import type { PublishingService } from "../../src/publishing/index.ts";
import { DeletePublishedAnswerSchema } from "../../src/routes/posts_delete_published.ts";
import { createAccount, createApiKey } from "../../src/store/accounts.ts";
import { postHistory } from "../../src/store/events.ts";
import {
  content,
  insertPost,
  mediaFile,
  requestsOf,
  sandboxBluesky,
  sandboxGet,
  sandboxPost,
  seedDemo,
  targetsOf,
  testSealer,
  usePlatformTwins,
} from "../publishing-support.ts";

const twins = usePlatformTwins();

type Video = { id: string };
type Records = { records: { uri: string }[] };
type TikTokPost = { publishId: string; status: string };

const TIKTOK_REASON = "TikTok's API offers no way to delete a post: remove it in the TikTok app.";

describe("DELETE /api/v1/posts/{id}/published", () => {
  let demo: PublisherDemo;
  let key: string;
  let app: ServiceApp;
  let publishing: PublishingService;
  const setup = async (db: Database) => {
    demo ??= await seedDemo(db, twins.sandbox.url);
    key ??= (await createApiKey(db, { accountId: demo.accountId })).key;
    publishing ??= twins.publishing(db);
    app ??= createApp({ db, logger: silentLogger(), storage: twins.storage, publishing });
    return demo;
  };
  /** A post of the demo account to these connections, published now through the twins. */
  const published = async (
    db: Database,
    connections: { id: string; platform: string }[],
    body: PostContent,
    accountId = demo.accountId,
  ) => {
    const postId = await insertPost(db, { accountId, connections, content: body });
    const outcomes = await publishing.publishNow(postId, 20_000);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(connections.map(() => "published"));
    return postId;
  };
  /** The DELETE with `apiKey` (the demo's by default; none when null). */
  const remove = (postId: string, apiKey: string | null = key) =>
    app.request(`/api/v1/posts/${postId}/published`, {
      method: "DELETE",
      headers: apiKey === null ? {} : { "x-api-key": apiKey },
    });
  const videoIds = async () =>
    (await sandboxGet<{ videos: Video[] }>(twins.sandbox.url, "/_sandbox/youtube/videos")).videos.map(
      (v) => v.id,
    );
  const recordUris = async () =>
    (await sandboxGet<Records>(twins.sandbox.url, "/_sandbox/bluesky/records")).records.map((r) => r.uri);

  describe("success", () => {
    test("YouTube and Bluesky copies are deleted on the platforms; TikTok's is reported as not deletable", async ({
      db,
    }) => {
      const demo = await setup(db);
      const url = twins.storage.put("delete-all.mp4", mediaFile("mp4", 300_000, 5).bytes, "video/mp4");
      const postId = await published(
        db,
        [
          { id: demo.connections.youtube, platform: "youtube" },
          { id: demo.connections.tiktok, platform: "tiktok" },
          { id: demo.connections.bluesky, platform: "bluesky" },
        ],
        content({ caption: "Here, then gone", mediaItems: [{ url, mediaType: "VIDEO" }] }),
      );
      const ids = Object.fromEntries(
        (await targetsOf(db, postId)).map((t) => [t.platform, t.platformPostId]),
      );
      expect(await videoIds()).toContain(ids.youtube);
      expect(await recordUris()).toContain(ids.bluesky);

      const res = await remove(postId);
      expect(res.status).toBe(200);
      const body = await jsonOf(res, DeletePublishedAnswerSchema);
      expect(body).toEqual({
        postId,
        allDeleted: false,
        targets: [
          {
            connectionId: demo.connections.youtube,
            platform: "youtube",
            platformPostId: ids.youtube,
            deleted: true,
            deletedAt: expect.stringMatching(/Z$/),
            code: null,
            reason: null,
          },
          {
            connectionId: demo.connections.tiktok,
            platform: "tiktok",
            platformPostId: ids.tiktok,
            deleted: false,
            deletedAt: null,
            code: "NOT_SUPPORTED",
            reason: TIKTOK_REASON,
          },
          {
            connectionId: demo.connections.bluesky,
            platform: "bluesky",
            platformPostId: ids.bluesky,
            deleted: true,
            deletedAt: expect.stringMatching(/Z$/),
            code: null,
            reason: null,
          },
        ],
      });
      expect(await videoIds()).not.toContain(ids.youtube);
      expect(await recordUris()).not.toContain(ids.bluesky);
      const { posts } = await sandboxGet<{ posts: TikTokPost[] }>(
        twins.sandbox.url,
        "/_sandbox/tiktok/posts",
      );
      expect(posts.some((post) => post.status === "PUBLISH_COMPLETE")).toBe(true);

      const history = await postHistory(db, demo.accountId, postId);
      const deletedEvents = history?.entries.filter(
        (entry) => entry.kind === "event" && entry.type === "post.deleted",
      );
      expect(deletedEvents).toEqual([
        expect.objectContaining({
          data: {
            postId,
            deleted: [
              expect.objectContaining({
                platform: "youtube",
                platformPostId: ids.youtube,
                alreadyGone: false,
              }),
              expect.objectContaining({
                platform: "bluesky",
                platformPostId: ids.bluesky,
                alreadyGone: false,
              }),
            ],
            kept: [
              expect.objectContaining({ platform: "tiktok", code: "NOT_SUPPORTED", reason: TIKTOK_REASON }),
            ],
          },
        }),
      ]);
      expect(
        history?.entries.filter((entry) => entry.kind === "step" && entry.step === "deleted_on_platform"),
      ).toHaveLength(2);
    });

    test("GET /api/v1/posts/{id} then shows each removed copy's deletedAt; the copy that stays has none", async ({
      db,
    }) => {
      const demo = await setup(db);
      const url = twins.storage.put("read-after.mp4", mediaFile("mp4", 300_000, 5).bytes, "video/mp4");
      const postId = await published(
        db,
        [
          { id: demo.connections.tiktok, platform: "tiktok" },
          { id: demo.connections.youtube, platform: "youtube" },
        ],
        content({ caption: "Read after removal", mediaItems: [{ url, mediaType: "VIDEO" }] }),
      );
      const read = async () =>
        json(await app.request(`/api/v1/posts/${postId}`, { headers: { "x-api-key": key } }));
      expect((await read()).targets.map((t: { deletedAt: unknown }) => t.deletedAt)).toEqual([null, null]);

      const removal = await jsonOf(await remove(postId), DeletePublishedAnswerSchema);
      const after = await read();
      expect(after.targets).toEqual([
        expect.objectContaining({ platform: "tiktok", status: "published", deletedAt: null }),
        expect.objectContaining({
          platform: "youtube",
          status: "published",
          deletedAt: removal.targets[1]?.deletedAt,
        }),
      ]);
      expect(removal.targets[1]?.deletedAt).toMatch(/Z$/);
    });

    test("deleting again asks no platform: the copies are reported deleted when they were, and no second event", async ({
      db,
    }) => {
      const demo = await setup(db);
      const postId = await published(
        db,
        [{ id: demo.connections.bluesky, platform: "bluesky" }],
        content({ caption: "Once is enough" }),
      );
      await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
      const first = await json(await remove(postId));
      expect(first).toMatchObject({ allDeleted: true, targets: [{ deleted: true }] });
      const again = await remove(postId);
      expect(again.status).toBe(200);
      expect(await json(again)).toEqual(first);
      expect(await requestsOf(twins.sandbox.url, "com.atproto.repo.deleteRecord")).toHaveLength(1);
      const history = await postHistory(db, demo.accountId, postId);
      expect(
        history?.entries.filter((entry) => entry.kind === "event" && entry.type === "post.deleted"),
      ).toHaveLength(1);
    });

    test("two deletes at once both report the copy deleted, and the deletion is recorded once", async ({
      db,
    }) => {
      const demo = await setup(db);
      const url = twins.storage.put("twice-at-once.mp4", mediaFile("mp4", 2000, 13).bytes, "video/mp4");
      const postId = await published(
        db,
        [{ id: demo.connections.youtube, platform: "youtube" }],
        content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
      );
      const answers = await Promise.all([remove(postId), remove(postId)]);
      expect(answers.map((res) => res.status)).toEqual([200, 200]);
      for (const body of await Promise.all(answers.map((res) => json(res))))
        expect(body).toMatchObject({ allDeleted: true, targets: [{ deleted: true }] });
      const history = await postHistory(db, demo.accountId, postId);
      expect(
        history?.entries.filter((entry) => entry.kind === "event" && entry.type === "post.deleted"),
      ).toHaveLength(1);
      expect(
        history?.entries.filter((entry) => entry.kind === "step" && entry.step === "deleted_on_platform"),
      ).toHaveLength(1);
    });

    test("a video already deleted on YouTube counts as deleted, said so; an expired token is refreshed first", async ({
      db,
    }) => {
      const demo = await setup(db);
      const url = twins.storage.put("gone-already.mp4", mediaFile("mp4", 2000, 9).bytes, "video/mp4");
      const postId = await published(
        db,
        [{ id: demo.connections.youtube, platform: "youtube" }],
        content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
      );
      const [target] = await targetsOf(db, postId);
      await deleteOnTwin(target?.platformPostId as string);
      await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
      await sandboxPost(twins.sandbox.url, "/_sandbox/tokens/expire", { platform: "google" });
      const body = await json(await remove(postId));
      expect(body.targets).toEqual([
        expect.objectContaining({ deleted: true, code: null, reason: "The platform no longer had it." }),
      ]);
      const calls = await requestsOf(twins.sandbox.url, "youtube.videos.delete");
      expect(calls.map((call) => call.status)).toEqual([401, 404]);
      expect(await requestsOf(twins.sandbox.url, "google.oauth.token")).toHaveLength(1);
    });
  });

  describe("errors", () => {
    test("a post none of whose targets was published is 409 POST_NOT_PUBLISHED, and no platform is asked", async ({
      db,
    }) => {
      const demo = await setup(db);
      const postId = await insertPost(db, {
        accountId: demo.accountId,
        connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
        content: content({ caption: "Not yet" }),
        dueAt: new Date(Date.now() + 3_600_000),
      });
      await sandboxPost(twins.sandbox.url, "/_sandbox/requests", {}, "DELETE");
      const res = await remove(postId);
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({
        error: "POST_NOT_PUBLISHED",
        targets: [{ connectionId: demo.connections.bluesky, status: "scheduled" }],
      });
      expect(await requestsOf(twins.sandbox.url, "com.atproto.repo.deleteRecord")).toEqual([]);
    });

    test("a platform that cannot answer now leaves the copy, says so, and a later delete removes it", async ({
      db,
    }) => {
      const demo = await setup(db);
      const postId = await published(
        db,
        [{ id: demo.connections.bluesky, platform: "bluesky" }],
        content({ caption: "Stubborn" }),
      );
      const [target] = await targetsOf(db, postId);
      await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
        operation: "com.atproto.repo.deleteRecord",
        kind: "error",
        status: 503,
      });
      const first = await json(await remove(postId));
      expect(first).toMatchObject({
        allDeleted: false,
        targets: [
          {
            deleted: false,
            deletedAt: null,
            code: "UNAVAILABLE",
            reason: expect.stringContaining("Try again"),
          },
        ],
      });
      expect(await recordUris()).toContain(target?.platformPostId);
      const history = await postHistory(db, demo.accountId, postId);
      expect(history?.entries.some((entry) => entry.kind === "event" && entry.type === "post.deleted")).toBe(
        false,
      );
      const second = await json(await remove(postId));
      expect(second).toMatchObject({ allDeleted: true, targets: [{ deleted: true }] });
      expect(await recordUris()).not.toContain(target?.platformPostId);
    });

    test("a YouTube connection granted before deleting was asked for cannot delete: PERMISSION_MISSING, the video stays", async ({
      db,
    }) => {
      await setup(db);
      const account = await createAccount(db, { name: "Older connection" });
      const connectionId = await connectUploadOnly(db, account.id);
      const url = twins.storage.put("old-grant.mp4", mediaFile("mp4", 2000, 11).bytes, "video/mp4");
      const postId = await published(
        db,
        [{ id: connectionId, platform: "youtube" }],
        content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
        account.id,
      );
      const [target] = await targetsOf(db, postId);
      const ownKey = (await createApiKey(db, { accountId: account.id })).key;
      const body = await json(await remove(postId, ownKey));
      expect(body.targets).toEqual([
        expect.objectContaining({
          deleted: false,
          code: "PERMISSION_MISSING",
          reason: expect.stringContaining("connect it again"),
        }),
      ]);
      expect(await videoIds()).toContain(target?.platformPostId);
    });
  });

  describe("security", () => {
    test("without a key 401; with a read-only key 403; another account's post 404, and nothing is deleted", async ({
      db,
    }) => {
      const demo = await setup(db);
      const postId = await published(
        db,
        [{ id: demo.connections.bluesky, platform: "bluesky" }],
        content({ caption: "Mine" }),
      );
      const [target] = await targetsOf(db, postId);
      expect((await remove(postId, null)).status).toBe(401);
      const reader = await createApiKey(db, { accountId: demo.accountId, scopes: ["posts:read"] });
      const readOnly = await remove(postId, reader.key);
      expect(readOnly.status).toBe(403);
      expect(await json(readOnly)).toMatchObject({
        error: "INSUFFICIENT_SCOPE",
        requiredScope: "posts:write",
      });
      const stranger = await createAccount(db, { name: "Stranger" });
      const foreign = await remove(postId, (await createApiKey(db, { accountId: stranger.id })).key);
      expect(foreign.status).toBe(404);
      expect(await json(foreign)).toMatchObject({ error: "POST_NOT_FOUND" });
      expect(await recordUris()).toContain(target?.platformPostId);
    });
  });

  /** Deletes a video on the twin with a token of its own, as the channel's owner would in YouTube Studio. */
  async function deleteOnTwin(videoId: string) {
    const oauth = createGoogleOAuthClient(
      {
        authorizeBase: twins.sandbox.url,
        tokenBase: twins.sandbox.url,
        clientId: DEMO_GOOGLE.clientId,
        clientSecret: DEMO_GOOGLE.clientSecret,
        scopes: ["https://www.googleapis.com/auth/youtube"],
        timeoutMs: 5000,
      },
      systemClock,
    );
    const redirectUri = "http://127.0.0.1:3002/oauth/youtube/callback";
    const granted = await approveOnSandbox(
      oauth.authorizeUrl({ state: "studio", codeVerifier: "v".repeat(43), redirectUri }),
      DEMO_GOOGLE.accounts.creator.id,
    );
    const tokens = await oauth.exchangeCode({
      code: granted.code,
      codeVerifier: "v".repeat(43),
      redirectUri,
    });
    const youtube = createYouTubeClient(
      { apiBase: twins.sandbox.url, timeoutMs: 5000, chunkTimeoutMs: 5000 },
      oauth,
      systemClock,
    );
    expect(await youtube.deleteVideo(tokens.accessToken, videoId)).toBe("deleted");
  }

  /** A YouTube connection of `accountId` granted only the upload scope, as connections made before deleting existed. */
  async function connectUploadOnly(db: Database, accountId: string): Promise<string> {
    const base = sandboxAdapters(twins.sandbox.url);
    const oauth = createGoogleOAuthClient(
      {
        authorizeBase: twins.sandbox.url,
        tokenBase: twins.sandbox.url,
        clientId: DEMO_GOOGLE.clientId,
        clientSecret: DEMO_GOOGLE.clientSecret,
        scopes: [YOUTUBE_UPLOAD_SCOPE, "https://www.googleapis.com/auth/youtube.readonly"],
        timeoutMs: 5000,
      },
      systemClock,
    );
    const adapters = {
      ...base,
      youtube: createYouTubeClient(
        { apiBase: twins.sandbox.url, timeoutMs: 5000, chunkTimeoutMs: 5000 },
        oauth,
        systemClock,
      ),
    };
    const deps = {
      db,
      clock: systemClock,
      sealer: testSealer(),
      adapters,
      publicUrl: "http://127.0.0.1:3002",
      blueskyIdentity: sandboxIdentity(twins.sandbox.url, sandboxBluesky(twins.sandbox.url), adapters),
    };
    const { authorizeUrl } = await startConnect(deps, { accountId, platform: "youtube" });
    const granted = await approveOnSandbox(authorizeUrl, DEMO_GOOGLE.accounts.creator.id);
    return (await completeConnect(deps, { platform: "youtube", ...granted })).id;
  }
});
