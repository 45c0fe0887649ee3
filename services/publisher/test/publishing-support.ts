import { createHash } from "node:crypto";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import {
  createServiceApp,
  newId,
  type RunningServer,
  type ServiceApp,
  serveApp,
  systemClock,
} from "@app/core";
import type { Database } from "@app/db";
import type { ApiKeyEnv } from "@app/edge";
import {
  createSandbox,
  defaultSandboxSettings,
  type SandboxSettings,
  serveBlueskyNetwork,
} from "@app/sandbox";
import { silentLogger } from "@app/testkit";
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { afterAll, beforeAll } from "vitest";
import { registerConnectionRoutes } from "../src/connections/routes/index.ts";
import { createConnectionSealer } from "../src/connections/sealer.ts";
import type { PostContent } from "../src/contracts/post.ts";
import type { MediaStorage } from "../src/contracts/storage.ts";
import { type PublisherDemo, sandboxAdapters, sandboxIdentity, seedDemoPublisher } from "../src/demo.ts";
import type { Adapters } from "../src/platforms/index.ts";
import { createPublishing, type PublishingDeps, type PublishingService } from "../src/publishing/index.ts";
import type { KeyHolder } from "../src/store/accounts.ts";
import { releaseExpiredClaims } from "../src/store/targets.ts";

export const TEST_SECRET = "publisher-test-token-secret-0123456789abcdef";
export const testSealer = () => createConnectionSealer(TEST_SECRET);

/** The sandbox keeps no state in its database (readiness only pings it, which tests do not call). */
const noDatabase = { query: async () => [] } as unknown as Database;

/** The sandbox and its Bluesky network: the PLC directory and the second PDS, each on its own port. */
export type Sandbox = { url: string; plcUrl: string; pds2Url: string; close(): Promise<void> };

/** The Bluesky network of each running sandbox, by its URL (what the tests pass around). */
const networks = new Map<string, { plcUrl: string; pds2Url: string }>();

/** How the publisher finds Bluesky accounts on a running sandbox's network. */
export function sandboxBluesky(sandboxUrl: string): { plcUrl: string; trustedOrigins: string[] } {
  const network = networks.get(sandboxUrl);
  if (!network) throw new Error(`No sandbox started by startSandbox runs at ${sandboxUrl}`);
  return { plcUrl: network.plcUrl, trustedOrigins: [network.pds2Url] };
}

/** The platform sandbox served on a loopback port, as the publisher's adapters reach it. */
export async function startSandbox(adjust: (settings: SandboxSettings) => void = () => {}): Promise<Sandbox> {
  const settings = defaultSandboxSettings();
  settings.tiktok.processingPolls = 1;
  adjust(settings);
  const { app, bluesky } = createSandbox({ db: noDatabase, logger: silentLogger(), settings });
  const server: RunningServer = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
  bluesky.network.origins.default = server.url;
  const listeners = await serveBlueskyNetwork(bluesky, { host: "127.0.0.1", plcPort: 0, pds2Port: 0 });
  networks.set(server.url, listeners);
  return {
    url: server.url,
    plcUrl: listeners.plcUrl,
    pds2Url: listeners.pds2Url,
    close: async () => {
      networks.delete(server.url);
      await Promise.all([server.close(), listeners.close()]);
    },
  };
}

/** Deterministic bytes with a real file signature (so the type sniffs), and their SHA-256. */
export function mediaFile(
  kind: "mp4" | "jpeg" | "png",
  size: number,
  seed = 1,
): { bytes: Buffer; sha256: string } {
  const bytes = Buffer.alloc(size);
  for (let index = 0; index < size; index += 1) bytes[index] = (index * 31 + seed) & 255;
  const head =
    kind === "mp4"
      ? Buffer.from([0, 0, 0, 0x18, ...Buffer.from("ftypmp42")])
      : kind === "jpeg"
        ? Buffer.from([0xff, 0xd8, 0xff, 0xe0])
        : Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  head.copy(bytes, 0);
  return { bytes, sha256: createHash("sha256").update(bytes).digest("hex") };
}

/** Own storage in memory, served over loopback at `/media/<path>` (platforms pull from it). */
export type MemoryStorage = MediaStorage & {
  url: string;
  put(path: string, bytes: Buffer, contentType: string): string;
  close(): Promise<void>;
};

export async function startMemoryStorage(): Promise<MemoryStorage> {
  const objects = new Map<string, { bytes: Buffer; contentType: string }>();
  const server: Server = createServer((req, res) => {
    const object = objects.get(decodeURIComponent((req.url ?? "").replace(/^\/media\//, "")));
    if (!object) return void res.writeHead(404).end();
    res
      .writeHead(200, { "content-type": object.contentType, "content-length": object.bytes.length })
      .end(object.bytes);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const prefix = `${url}/media/`;
  return {
    url,
    put(path, bytes, contentType) {
      objects.set(path, { bytes, contentType });
      return `${prefix}${path}`;
    },
    async write(path, body, options) {
      const chunks: Buffer[] = [];
      for await (const chunk of body) chunks.push(chunk as Buffer);
      const bytes = Buffer.concat(chunks);
      if (bytes.length !== options.expectedBytes) throw new Error("size mismatch");
      objects.set(path, { bytes, contentType: options.contentType });
    },
    async head(path) {
      const object = objects.get(path);
      if (!object) throw new Error(`no object ${path}`);
      return { size: object.bytes.length, contentType: object.contentType };
    },
    async read(path, range) {
      const object = objects.get(path);
      if (!object) throw new Error(`no object ${path}`);
      const bytes = range ? object.bytes.subarray(range.start, range.end + 1) : object.bytes;
      return { stream: Readable.from([bytes]), size: object.bytes.length, contentType: object.contentType };
    },
    exists: async (path) => objects.has(path),
    delete: async (path) => {
      objects.delete(path);
    },
    publicUrl: (path) => `${prefix}${path}`,
    pathOf: (candidate) => (candidate.startsWith(prefix) ? candidate.slice(prefix.length) : undefined),
    presignPut: async () => {
      throw new Error("not used");
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** What `usePlatformTwins` gives a test file: read its members inside tests and hooks, not at load. */
export type PlatformTwins = {
  readonly sandbox: Sandbox;
  readonly storage: MemoryStorage;
  /** `testPublishing` on these twins (`overrides` may replace their storage or adapters, or add deps). */
  publishing(
    db: Database,
    overrides?: Partial<Omit<Parameters<typeof testPublishing>[0], "db">>,
  ): PublishingService;
};

/**
 * A memory storage and a platform sandbox for one test file: started before its tests (`beforeAll`),
 * stopped after them (`afterAll`, the sandbox first). `adjust` tunes the sandbox's settings and may
 * read the storage, already serving (e.g. to let TikTok pull from its URL prefix). If a start fails,
 * only what did start is stopped; reading a twin that is not running throws.
 */
export function usePlatformTwins(
  adjust: (settings: SandboxSettings, storage: MemoryStorage) => void = () => {},
): PlatformTwins {
  let storage: MemoryStorage | undefined;
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    const started = await startMemoryStorage();
    storage = started;
    sandbox = await startSandbox((settings) => adjust(settings, started));
  });
  afterAll(async () => {
    try {
      await sandbox?.close();
    } finally {
      await storage?.close();
      sandbox = undefined;
      storage = undefined;
    }
  });
  const runningSandbox = (): Sandbox => {
    if (!sandbox) throw new Error("The sandbox is not running: read it inside a test or hook");
    return sandbox;
  };
  const runningStorage = (): MemoryStorage => {
    if (!storage) throw new Error("The memory storage is not running: read it inside a test or hook");
    return storage;
  };
  return {
    get sandbox() {
      return runningSandbox();
    },
    get storage() {
      return runningStorage();
    },
    publishing: (db, overrides = {}) =>
      testPublishing({ db, sandboxUrl: runningSandbox().url, storage: runningStorage(), ...overrides }),
  };
}

/** The demo account and its three connections, through the sandbox's real OAuth flows. */
export function seedDemo(db: Database, sandboxUrl: string): Promise<PublisherDemo> {
  return seedDemoPublisher(db, {
    sandboxUrl,
    publicUrl: "http://127.0.0.1:3002",
    sealer: testSealer(),
    bluesky: sandboxBluesky(sandboxUrl),
  });
}

/** A normalised post payload with the API's defaults. */
export function content(
  overrides: Partial<Omit<PostContent, "tiktok">> & { tiktok?: Partial<PostContent["tiktok"]> } = {},
): PostContent {
  return {
    caption: overrides.caption ?? "Hello from the publisher tests",
    mediaItems: overrides.mediaItems ?? [],
    youtube: overrides.youtube ?? { privacy: "private" },
    tiktok: {
      postMode: "DIRECT_POST",
      privacy: "PUBLIC_TO_EVERYONE",
      commercialType: 0,
      disableComment: false,
      disableDuet: false,
      disableStitch: false,
      ...overrides.tiktok,
    },
  };
}

/** A post and one target per connection, as the API writes them (status scheduled, due at `dueAt`). */
export async function insertPost(
  db: Database,
  input: {
    accountId: string;
    connections: { id: string; platform: string }[];
    content: PostContent;
    dueAt?: Date;
  },
): Promise<string> {
  const postId = newId("post");
  const dueAt = input.dueAt ?? new Date();
  await db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO publisher.posts (id, account_id, status, content, connection_ids, platforms, scheduled_for)
       VALUES ($1, $2, 'scheduled', $3::jsonb, $4, $5, $6)`,
      [
        postId,
        input.accountId,
        JSON.stringify(input.content),
        input.connections.map((c) => c.id),
        [...new Set(input.connections.map((c) => c.platform))],
        dueAt,
      ],
    );
    for (const connection of input.connections) {
      await tx.query(
        `INSERT INTO publisher.post_targets (id, post_id, connection_id, platform, status, due_at, next_attempt_at)
         VALUES ($1, $2, $3, $4, 'scheduled', $5, $5)`,
        [newId("tgt"), postId, connection.id, connection.platform, dueAt],
      );
    }
  });
  return postId;
}

export type TargetRow = {
  id: string;
  platform: string;
  status: string;
  error: string | null;
  platformPostId: string | null;
  platformHandle: Record<string, unknown> | null;
  attempts: number;
  claimedBy: string | null;
  nextAttemptAt: Date;
};

export async function targetsOf(db: Database, postId: string): Promise<TargetRow[]> {
  return db.query<TargetRow>(
    `SELECT id, platform, status, error, platform_post_id AS "platformPostId", platform_handle AS "platformHandle",
       attempts, claimed_by AS "claimedBy", next_attempt_at AS "nextAttemptAt"
     FROM publisher.post_targets WHERE post_id = $1 ORDER BY platform`,
    [postId],
  );
}

export async function postStatus(db: Database, postId: string): Promise<string | undefined> {
  const [row] = await db.query<{ status: string }>("SELECT status FROM publisher.posts WHERE id = $1", [
    postId,
  ]);
  return row?.status;
}

/** Polls `check` until it returns a value (not undefined/false) or the deadline passes. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false>,
  what: string,
  deadlineMs = 20_000,
): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > until) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Polls (as `waitFor`) until a statement holding `statement` in its text, on another connection,
 * is waiting for a lock: the moment a test of concurrent writers lets the lock holder go on.
 * PostgreSQL only (it reads `pg_stat_activity`), so for `*.postgres.test.ts`.
 */
export async function waitForLockWait(db: Database, statement: string): Promise<void> {
  await waitFor(async () => {
    const [waiting] = await db.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pg_stat_activity
       WHERE wait_event_type = 'Lock' AND query LIKE $1`,
      [`%${statement}%`],
    );
    return (waiting?.count ?? 0) > 0;
  }, `a statement waiting on a lock: ${statement}`);
}

/**
 * Polls (as `waitFor`) until the post's first target (by platform) has settled, published or failed,
 * and returns it; for posts with one target.
 */
export function waitForSettledTarget(db: Database, postId: string, what: string): Promise<TargetRow> {
  return waitFor(async () => {
    const [target] = await targetsOf(db, postId);
    return target?.status === "published" || target?.status === "failed" ? target : undefined;
  }, what);
}

/**
 * The leases on the post's targets run out (as when a worker misses its heartbeats) and the sweeper
 * hands them back; returns the claims it released.
 */
export async function expireLeasesAndSweep(
  db: Database,
  postId: string,
): Promise<{ id: string; claimedBy: string }[]> {
  await db.query(
    "UPDATE publisher.post_targets SET claimed_until = now() - interval '1 second' WHERE post_id = $1",
    [postId],
  );
  return releaseExpiredClaims(db, new Date());
}

/** Publishing wired to the sandbox, with fast retries and polls for tests. */
export function testPublishing(
  deps: {
    db: Database;
    sandboxUrl: string;
    storage: MediaStorage;
    adapters?: Adapters;
  } & Partial<PublishingDeps>,
): PublishingService {
  return createPublishing({
    logger: silentLogger(),
    sealer: testSealer(),
    adapters: deps.adapters ?? sandboxAdapters(deps.sandboxUrl),
    retry: { baseDelayMs: 50, maxDelayMs: 200, maxAttempts: 5 },
    tuning: { statusPollMs: 50, youtubeChunkBytes: 256 * 1024, tiktokChunkBytes: 5 * 1024 * 1024 },
    ...deps,
  });
}

/** Reads one of the sandbox's inspection or control endpoints. */
export async function sandboxGet<T>(sandboxUrl: string, path: string): Promise<T> {
  const res = await fetch(`${sandboxUrl}${path}`);
  if (!res.ok) throw new Error(`${path}: ${res.status}`);
  return (await res.json()) as T;
}

export async function sandboxPost(
  sandboxUrl: string,
  path: string,
  body: unknown,
  method = "POST",
): Promise<void> {
  const res = await fetch(`${sandboxUrl}${path}`, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
}

export type LoggedRequest = { operation: string; status: number | null; at: string; fault: unknown };

/** The sandbox's request log for one operation. */
export async function requestsOf(sandboxUrl: string, operation: string): Promise<LoggedRequest[]> {
  const body = await sandboxGet<{ requests: LoggedRequest[] }>(
    sandboxUrl,
    `/_sandbox/requests?operation=${operation}`,
  );
  return body.requests;
}

/**
 * YouTube adapters whose Nth `uploadChunk` (for each N in `holdAt`) waits until the test opens it:
 * `at(n).reached` once the chunk call arrives, `at(n).open()` to let it go.
 */
export function gateYouTubeChunks(base: Adapters, holdAt: number[]) {
  let calls = 0;
  const gates = new Map(
    holdAt.map((n) => {
      let arrived!: () => void;
      let open!: () => void;
      const reached = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      const opened = new Promise<void>((resolve) => {
        open = resolve;
      });
      return [n, { reached, arrived, opened, open }] as const;
    }),
  );
  const adapters: Adapters = {
    ...base,
    youtube: {
      ...base.youtube,
      async uploadChunk(sessionUri, chunk) {
        calls += 1;
        const gate = gates.get(calls);
        if (gate) {
          gate.arrived();
          await gate.opened;
        }
        return base.youtube.uploadChunk(sessionUri, chunk);
      },
    },
  };
  const at = (n: number) => gates.get(n) as { reached: Promise<void>; open: () => void };
  return { adapters, at };
}

/**
 * The connect routes alone, on the sandbox's platforms: `authenticate` names the caller's account
 * (throw for a refused key), in place of the API half's key check; callbacks go to `publicUrl`.
 */
export function connectionRoutesApp(
  db: Database,
  sandboxUrl: string,
  options: { publicUrl?: string; authenticate(c: Context): Promise<{ accountId: string }> },
): ServiceApp {
  const app = createServiceApp({
    name: "t",
    title: "t",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => {},
  });
  const adapters = sandboxAdapters(sandboxUrl);
  registerConnectionRoutes(app, {
    db,
    clock: systemClock,
    sealer: testSealer(),
    adapters,
    publicUrl: options.publicUrl ?? "http://127.0.0.1:3002",
    blueskyIdentity: sandboxIdentity(sandboxUrl, sandboxBluesky(sandboxUrl), adapters),
    keyGuard: (scope) =>
      createMiddleware<ApiKeyEnv<KeyHolder>>(async (c, next) => {
        const { accountId } = await options.authenticate(c);
        c.set("caller", { keyId: "key_test", accountId, scopes: [scope] });
        await next();
      }),
  });
  return app;
}

/** A loopback media host that sends `bytes` a byte every 50 ms, counting the downloads it holds open. */
export type TricklingHost = { readonly url: string; open: Set<ServerResponse>; mostOpen: number };

/** A {@link TricklingHost} for one test file: listening before its tests, closed after them. */
export function useTricklingHost(bytes: Buffer): TricklingHost {
  let server: Server | undefined;
  const host = { url: "", open: new Set<ServerResponse>(), mostOpen: 0 };
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": bytes.length });
      host.open.add(res);
      host.mostOpen = Math.max(host.mostOpen, host.open.size);
      let sent = 0;
      const timer = setInterval(() => {
        res.write(bytes.subarray(sent, sent + 1));
        sent += 1;
      }, 50);
      res.on("close", () => {
        clearInterval(timer);
        host.open.delete(res);
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
    host.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server?.closeAllConnections();
    server?.close();
  });
  return host;
}
