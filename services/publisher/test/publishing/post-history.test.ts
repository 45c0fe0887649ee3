import { newId, type ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import { DEMO_TIKTOK } from "@app/sandbox/demo";
import { json, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createApp } from "../../src/app.ts";
import { completeConnect, startConnect } from "../../src/connections/connect-flows.ts";
import type { PostContent } from "../../src/contracts/post.ts";
import { approveOnSandbox, type PublisherDemo, sandboxAdapters, sandboxIdentity } from "../../src/demo.ts";
import { openHandle } from "../../src/publishing/handle-seal.ts";
import type { PublishingService } from "../../src/publishing/index.ts";
import { createApiKey } from "../../src/store/accounts.ts";
import { findConnection, secretsCodec } from "../../src/store/connections.ts";
import { insertPost } from "../../src/store/posts.ts";
import {
  content,
  expireLeasesAndSweep,
  gateYouTubeChunks,
  mediaFile,
  postStatus,
  sandboxBluesky,
  sandboxPost,
  seedDemo,
  targetsOf,
  testSealer,
  usePlatformTwins,
  waitFor,
} from "../publishing-support.ts";

const twins = usePlatformTwins((settings, storage) => {
  settings.tiktok.verifiedUrlPrefixes = [`${storage.url}/media/`];
});

type Entry = {
  kind: "event" | "step";
  type?: string;
  step?: string;
  targetId: string | null;
  data?: Record<string, unknown>;
  detail?: Record<string, unknown>;
};

/** A post written as the API writes it (with its `post.scheduled` event), due now. */
function createPost(
  db: Database,
  demo: PublisherDemo,
  platforms: Array<keyof PublisherDemo["connections"]>,
  body: PostContent,
) {
  const now = new Date();
  return db.transaction((tx) =>
    insertPost(tx, {
      accountId: demo.accountId,
      content: body,
      targets: platforms.map((platform) => ({ connectionId: demo.connections[platform], platform })),
      scheduledFor: null,
      dueAt: now,
      now,
    }),
  );
}

describe("a post's history from real publishing runs", () => {
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
  const historyText = async (postId: string) => {
    const res = await app.request(`/api/v1/posts/${postId}/events`, { headers: { "x-api-key": key } });
    expect(res.status).toBe(200);
    return res.text();
  };
  const history = async (postId: string): Promise<Entry[]> =>
    (JSON.parse(await historyText(postId)) as { history: Entry[] }).history;
  /** The names of one target's entries, in order. */
  const named = (entries: Entry[], targetId: string) =>
    entries.filter((entry) => entry.targetId === targetId).map((e) => e.type ?? e.step);

  test("names the worker, each saved handle, the upload's progress and the outcome of every target", async ({
    db,
  }) => {
    const demo = await setup(db);
    const video = mediaFile("mp4", 256 * 1024 * 12 + 1000, 4);
    const url = twins.storage.put("history.mp4", video.bytes, "video/mp4");
    const postId = await createPost(
      db,
      demo,
      ["youtube", "tiktok", "bluesky"],
      content({
        caption: "history",
        mediaItems: [{ url, mediaType: "VIDEO" }],
      }),
    );
    const outcomes = await publishing.publishNow(postId, 20_000);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(["published", "published", "published"]);
    const entries = await history(postId);
    const targets = Object.fromEntries((await targetsOf(db, postId)).map((t) => [t.platform, t.id]));
    const youtube = targets.youtube as string;
    // 13 chunks of 256 KiB, one progress step per tenth of the upload at most: 10, the last at the end.
    expect(named(entries, youtube)).toEqual([
      "claimed",
      "handle_saved",
      ...Array.from({ length: 10 }, () => "upload_progress"),
      "published",
      "target.published",
    ]);
    expect(entries.filter((e) => e.targetId === null).map((e) => e.type)).toEqual([
      "post.scheduled",
      "post.publishing",
      "post.published",
    ]);
    const progress = entries.filter((e) => e.step === "upload_progress" && e.targetId === youtube);
    expect(progress.at(-1)?.detail).toMatchObject({
      sentBytes: video.bytes.length,
      totalBytes: video.bytes.length,
    });
    const claimed = entries.find((e) => e.step === "claimed" && e.targetId === youtube);
    expect(claimed?.detail).toMatchObject({
      workerId: expect.stringMatching(/:now$/),
      attempt: 1,
      resumed: false,
    });
    const saved = entries.find((e) => e.step === "handle_saved" && e.targetId === youtube);
    expect(saved?.detail).toEqual({ workerId: claimed?.detail?.workerId, handle: { kept: ["sessionUri"] } });
    const tiktokHandles = entries
      .filter((e) => e.step === "handle_saved" && e.targetId === targets.tiktok)
      .map((e) => (e.detail?.handle as { phase?: string } | undefined)?.phase);
    expect(tiktokHandles).toEqual(["initiating", "uploading", "processing"]);
    const blueskyHandle = entries.find((e) => e.step === "handle_saved" && e.targetId === targets.bluesky);
    expect(blueskyHandle?.detail?.handle).toMatchObject({
      rkey: expect.any(String),
      repo: expect.any(String),
    });
    expect(entries.at(-1)).toMatchObject({ kind: "event", type: "post.published" });
    expect(entries.filter((e) => e.type === "target.published")).toHaveLength(3);
    expect(entries.filter((e) => e.type === "post.publishing")).toHaveLength(1);
  });

  test("holds no token, app password or upload URL of the connections, sealed or in clear", async ({
    db,
  }) => {
    const demo = await setup(db);
    const video = mediaFile("mp4", 256 * 1024 * 2 + 10, 6);
    const url = twins.storage.put("secrets.mp4", video.bytes, "video/mp4");
    const postId = await createPost(
      db,
      demo,
      ["youtube", "tiktok", "bluesky"],
      content({
        mediaItems: [{ url, mediaType: "VIDEO" }],
      }),
    );
    await publishing.publishNow(postId, 20_000);
    const text = await historyText(postId);
    const secrets: string[] = [];
    const codec = secretsCodec(testSealer());
    for (const connectionId of Object.values(demo.connections)) {
      const row = await findConnection(db, connectionId);
      if (!row) throw new Error(`no connection ${connectionId}`);
      const opened = codec.open(row);
      secrets.push(row.sealedTokens, opened.accessToken);
      if (opened.refreshToken) secrets.push(opened.refreshToken);
      if (opened.appPassword) secrets.push(opened.appPassword);
    }
    for (const target of await targetsOf(db, postId)) {
      const sealed = target.platformHandle ?? {};
      const clear = openHandle(testSealer(), target.id, sealed) ?? {};
      for (const field of ["sessionUri", "uploadUrl"]) {
        if (typeof sealed[field] === "string") secrets.push(sealed[field] as string, clear[field] as string);
      }
    }
    expect(secrets.length).toBeGreaterThanOrEqual(9);
    for (const secret of secrets)
      expect(text.includes(secret), `the history shows ${secret.slice(0, 12)}…`).toBe(false);
    expect(text).toContain("handle_saved");
  });

  test("a retried failure shows the platform's code and message, the delay, and the next attempt", async ({
    db,
  }) => {
    const demo = await setup(db);
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "com.atproto.repo.createRecord",
      kind: "error",
      status: 429,
      error: "RateLimitExceeded",
      retryAfterSeconds: 1,
    });
    const postId = await createPost(db, demo, ["bluesky"], content({ caption: "retried in history" }));
    const workers = publishing.startWorkers({
      workerId: "history-worker",
      pollIntervalMs: 50,
      sweepIntervalMs: false,
    });
    try {
      await waitFor(
        async () => (await postStatus(db, postId)) === "published",
        "the retried post to publish",
      );
    } finally {
      await workers.stop();
    }
    const entries = await history(postId);
    expect(entries.map((e) => e.type ?? e.step)).toEqual([
      "post.scheduled",
      "claimed",
      "post.publishing",
      "handle_saved",
      "retry_scheduled",
      "claimed",
      "published",
      "target.published",
      "post.published",
    ]);
    const retry = entries[4]?.detail;
    expect(retry).toMatchObject({
      workerId: "history-worker",
      attempt: 1,
      answer: { platform: "bluesky", code: "RateLimitExceeded", httpStatus: 429 },
    });
    expect(retry?.delayMs).toBeGreaterThanOrEqual(1000);
    expect(entries[5]?.detail).toMatchObject({ attempt: 2, resumed: true });
  });

  test("a refusal fails the target with the platform's reason in target.failed, then post.failed", async ({
    db,
  }) => {
    const demo = await setup(db);
    await sandboxPost(twins.sandbox.url, "/_sandbox/faults", {
      operation: "youtube.videos.insert",
      kind: "error",
      status: 403,
      error: "quotaExceeded",
    });
    const url = twins.storage.put("refused.mp4", mediaFile("mp4", 1000).bytes, "video/mp4");
    const postId = await createPost(
      db,
      demo,
      ["youtube"],
      content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
    );
    await publishing.publishNow(postId, 20_000);
    const entries = await history(postId);
    const failed = entries.find((e) => e.type === "target.failed");
    expect(failed?.data).toMatchObject({
      platform: "youtube",
      reason: "quotaExceeded",
      message: expect.any(String),
      error: expect.stringMatching(/^quotaExceeded: /),
    });
    expect(entries.find((e) => e.step === "failed")?.detail).toMatchObject({
      answer: { platform: "youtube", code: "quotaExceeded", httpStatus: 403 },
    });
    expect(entries.at(-1)).toMatchObject({
      type: "post.failed",
      data: { status: "failed", targets: [{ status: "failed" }] },
    });
  });

  test("a lease that ran out shows lease_expired, the next worker resuming, and the stale run's claim_lost", async ({
    db,
  }) => {
    const demo = await setup(db);
    const video = mediaFile("mp4", 3 * 256 * 1024 + 1000, 8);
    const url = twins.storage.put("history-lease.mp4", video.bytes, "video/mp4");
    const postId = await createPost(
      db,
      demo,
      ["youtube"],
      content({ mediaItems: [{ url, mediaType: "VIDEO" }] }),
    );
    const a = gateYouTubeChunks(sandboxAdapters(twins.sandbox.url), [1]);
    const workerA = twins.publishing(db, { adapters: a.adapters }).startWorkers({
      workerId: "history-A",
      pollIntervalMs: 20,
      sweepIntervalMs: false,
    });
    let b: { stop(): Promise<void> } = { stop: async () => {} };
    try {
      await a.at(1).reached;
      expect(await expireLeasesAndSweep(db, postId)).toHaveLength(1);
      b = twins
        .publishing(db)
        .startWorkers({ workerId: "history-B", pollIntervalMs: 20, sweepIntervalMs: false });
      await waitFor(async () => (await postStatus(db, postId)) === "published", "worker B to publish");
      a.at(1).open();
      await waitFor(
        async () => (await history(postId)).some((e) => e.step === "claim_lost"),
        "the stale worker to find its claim lost",
      );
    } finally {
      a.at(1).open();
      await Promise.all([workerA.stop(), b.stop()]);
    }
    const steps = (await history(postId)).filter((e) => e.kind === "step");
    const expired = steps.find((e) => e.step === "lease_expired");
    expect(expired?.detail).toEqual({ formerWorker: "history-A" });
    const claims = steps.filter((e) => e.step === "claimed").map((e) => e.detail);
    expect(claims).toMatchObject([
      { workerId: "history-A", resumed: false },
      { workerId: "history-B", resumed: true },
    ]);
    expect(steps.find((e) => e.step === "claim_lost")?.detail).toMatchObject({ workerId: "history-A" });
    expect(steps.find((e) => e.step === "published")?.detail).toMatchObject({ workerId: "history-B" });
  });

  test("a connection whose grant is revoked gets one connection.reconnect_required event", async ({ db }) => {
    const demo = await setup(db);
    const base = {
      db,
      clock: { now: () => new Date() },
      sealer: testSealer(),
      adapters: sandboxAdapters(twins.sandbox.url),
      publicUrl: "http://127.0.0.1:3002",
    };
    const deps = {
      ...base,
      blueskyIdentity: sandboxIdentity(twins.sandbox.url, sandboxBluesky(twins.sandbox.url), base.adapters),
    };
    const { authorizeUrl } = await startConnect(deps, { accountId: demo.accountId, platform: "tiktok" });
    const creator = await completeConnect(deps, {
      platform: "tiktok",
      ...(await approveOnSandbox(authorizeUrl, DEMO_TIKTOK.creators.private.openId)),
    });
    for (const action of ["revoke", "expire"])
      await sandboxPost(twins.sandbox.url, `/_sandbox/tokens/${action}`, {
        platform: "tiktok",
        account: DEMO_TIKTOK.creators.private.openId,
      });
    const url = twins.storage.put(`${newId("rev")}.mp4`, mediaFile("mp4", 1000).bytes, "video/mp4");
    for (let run = 0; run < 2; run += 1) {
      const postId = await db.transaction((tx) =>
        insertPost(tx, {
          accountId: demo.accountId,
          content: content({ mediaItems: [{ url, mediaType: "VIDEO" }], tiktok: { privacy: "SELF_ONLY" } }),
          targets: [{ connectionId: creator.id, platform: "tiktok" }],
          scheduledFor: null,
          dueAt: new Date(),
          now: new Date(),
        }),
      );
      const [outcome] = await publishing.publishNow(postId, 20_000);
      expect(outcome?.status).toBe("failed");
    }
    // On PostgreSQL an event shows once every older transaction on the server has ended.
    const reconnects = await waitFor(async () => {
      const res = await app.request("/api/v1/events?limit=500", { headers: { "x-api-key": key } });
      const { events } = (await json(res)) as {
        events: Array<{ type: string; data: Record<string, unknown> }>;
      };
      const found = events.filter((event) => event.type === "connection.reconnect_required");
      return found.length > 0 && found;
    }, "the reconnect event");
    expect(reconnects).toHaveLength(1);
    expect(reconnects[0]?.data).toMatchObject({
      connectionId: creator.id,
      platform: "tiktok",
      reason: expect.stringContaining("invalid_grant"),
    });
  });
});
