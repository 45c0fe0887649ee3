import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type Database, openPostgres } from "@app/db";
import { DEMO_GOOGLE, DEMO_TIKTOK } from "@app/sandbox/demo";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { PublisherDemo } from "../../src/demo.ts";
import { LocalDiskStorage } from "../../src/storage/index.ts";
import {
  content,
  insertPost,
  mediaFile,
  postStatus,
  requestsOf,
  type Sandbox,
  sandboxGet,
  sandboxPost,
  seedDemo,
  startSandbox,
  TEST_SECRET,
  targetsOf,
  waitFor,
} from "../publishing-support.ts";

const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const WORKER = fileURLToPath(new URL("../../src/worker.ts", import.meta.url));
const PUBLIC_URL = "http://127.0.0.1:3999";

/**
 * Several processes on one database server: PostgreSQL only. `*.postgres.test.ts` files run in the
 * suite's PostgreSQL pass (`TEST_DATABASE_URL`, CI's second pass), not on embedded PGlite.
 */
describe("several worker processes on one PostgreSQL", () => {
  let sandbox: Sandbox;
  let db: Database;
  let admin: Database;
  let databaseUrl: string;
  let dataDir: string;
  let demo: PublisherDemo;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    const source = inject("testDatabase");
    if (source.kind !== "postgres") throw new Error("run with TEST_DATABASE_URL: this file needs PostgreSQL");
    const name = `publisher_workers_${randomBytes(4).toString("hex")}`;
    admin = await openPostgres(source.adminUrl, { maxConnections: 1 });
    await admin.exec(`CREATE DATABASE ${name} TEMPLATE ${source.template}`);
    const url = new URL(source.adminUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    db = await openPostgres(databaseUrl);
    sandbox = await startSandbox();
    dataDir = await mkdtemp(join(tmpdir(), "publisher-workers-"));
    demo = await seedDemo(db, sandbox.url);
    return async () => {
      for (const child of children) child.kill("SIGKILL");
      await db.close();
      await admin.exec(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.close();
      await sandbox.close();
      await rm(dataDir, { recursive: true, force: true });
    };
  });
  afterAll(() => undefined);

  function startWorker(id: string): ChildProcess & { output: string[] } {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith("PUBLISHER_")),
    );
    const child = spawn(process.execPath, ["--import", "tsx", WORKER], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        ...inherited,
        DATABASE_URL: databaseUrl,
        DATA_DIR: dataDir,
        LOG_LEVEL: "warn",
        PUBLISHER_TOKEN_SECRET: TEST_SECRET,
        PUBLISHER_PLATFORM_URL: sandbox.url,
        PUBLISHER_GOOGLE_CLIENT_ID: DEMO_GOOGLE.clientId,
        PUBLISHER_GOOGLE_CLIENT_SECRET: DEMO_GOOGLE.clientSecret,
        PUBLISHER_TIKTOK_CLIENT_KEY: DEMO_TIKTOK.clientKey,
        PUBLISHER_TIKTOK_CLIENT_SECRET: DEMO_TIKTOK.clientSecret,
        PUBLISHER_PUBLIC_URL: PUBLIC_URL,
        PUBLISHER_STORAGE_DIR: join(dataDir, "media"),
        PUBLISHER_WORKER_ID: id,
        PUBLISHER_WORKER_LEASE_MS: "1500",
        PUBLISHER_SWEEP_INTERVAL_MS: "300",
        PUBLISHER_WORKER_POLL_MS: "100",
      },
    }) as ChildProcess & { output: string[] };
    child.output = [];
    child.stdout?.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => child.output.push(chunk.toString()));
    children.push(child);
    return child;
  }

  const stop = (child: ChildProcess) =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      child.kill("SIGTERM");
    });

  // Worker processes start with tsx and wait out leases: minutes under load, not the default 30 s.
  it("two workers publish twenty due posts, each exactly once", { timeout: 180_000 }, async () => {
    const posts: string[] = [];
    for (let index = 0; index < 20; index += 1) {
      posts.push(
        await insertPost(db, {
          accountId: demo.accountId,
          connections: [{ id: demo.connections.bluesky, platform: "bluesky" }],
          content: content({ caption: `exactly once #${index}` }),
        }),
      );
    }
    await sandboxPost(sandbox.url, "/_sandbox/requests", {}, "DELETE");
    const workers = [startWorker("worker-one"), startWorker("worker-two")];
    try {
      await waitFor(
        async () =>
          (await Promise.all(posts.map((postId) => postStatus(db, postId)))).every((s) => s === "published"),
        `all posts to publish (worker output: ${workers.map((w) => w.output.join("")).join(" | ")})`,
        120_000,
      );
    } finally {
      await Promise.all(workers.map(stop));
    }
    const created = (await requestsOf(sandbox.url, "com.atproto.repo.createRecord")).filter(
      (call) => call.status === 200,
    );
    expect(created).toHaveLength(20);
    const { records } = await sandboxGet<{ records: { value: { text: string } }[] }>(
      sandbox.url,
      "/_sandbox/bluesky/records",
    );
    const texts = records
      .map((record) => record.value.text)
      .filter((text) => text.startsWith("exactly once #"));
    expect(new Set(texts).size).toBe(20);
    expect(texts).toHaveLength(20);
  });

  it("a worker killed mid-upload after saving the session is taken over and the video is made once", {
    timeout: 180_000,
  }, async () => {
    const video = mediaFile("mp4", 256 * 1024 * 3 + 17, 21);
    const storage = new LocalDiskStorage({
      dir: join(dataDir, "media"),
      publicBaseUrl: () => PUBLIC_URL,
      credentials: {
        accessKeyId: "publisher-local",
        secretAccessKey: "unused-in-this-test",
        region: "us-east-1",
      },
    });
    await storage.write("killed-video.mp4", Readable.from([video.bytes]), {
      contentType: "video/mp4",
      expectedBytes: video.bytes.length,
    });
    await sandboxPost(sandbox.url, "/_sandbox/requests", {}, "DELETE");
    await sandboxPost(sandbox.url, "/_sandbox/faults", {
      operation: "youtube.videos.upload",
      kind: "timeout",
      count: 1,
      holdMs: 60_000,
    });
    const postId = await insertPost(db, {
      accountId: demo.accountId,
      connections: [{ id: demo.connections.youtube, platform: "youtube" }],
      content: content({ mediaItems: [{ url: storage.publicUrl("killed-video.mp4"), mediaType: "VIDEO" }] }),
    });
    const doomed = startWorker("worker-doomed");
    const [held] = await waitFor(
      async () => {
        const targets = await targetsOf(db, postId);
        return targets[0]?.platformHandle?.sessionUri && targets[0].claimedBy === "worker-doomed"
          ? targets
          : undefined;
      },
      `the session to be saved (${doomed.output.join("")})`,
      90_000,
    );
    const sessionUri = held?.platformHandle?.sessionUri;
    doomed.kill("SIGKILL");
    const survivor = startWorker("worker-survivor");
    try {
      await waitFor(
        async () => (await postStatus(db, postId)) === "published",
        `the survivor to publish (${survivor.output.join("")})`,
        90_000,
      );
    } finally {
      await stop(survivor);
    }
    const [target] = await targetsOf(db, postId);
    expect(target?.platformHandle?.sessionUri).toBe(sessionUri);
    expect(await requestsOf(sandbox.url, "youtube.videos.insert")).toHaveLength(1);
    const { videos } = await sandboxGet<{ videos: { id: string; sha256: string }[] }>(
      sandbox.url,
      "/_sandbox/youtube/videos",
    );
    const made = videos.filter((candidate) => candidate.sha256 === video.sha256);
    expect(made.map((candidate) => candidate.id)).toEqual([target?.platformPostId]);
  });
});
