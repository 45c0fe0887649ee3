import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LocalManifest } from "../src/platform.ts";
import {
  interrupt,
  type Launch,
  launch,
  localEnv,
  readManifest,
  runCli,
  spawnEntry,
  waitFor,
  withStoredDatabase,
} from "./support/launch.ts";

const execFileAsync = promisify(execFile);

/** The gateway trusts a valid key from memory this long (its README). */
const GATEWAY_KEY_CACHE_MS = 1_000;

type Credentials = {
  publisher: { accountId: string; apiKey: string; connections: { bluesky: string } };
  gateway: { accountId: string };
  markets: { sampleRefs: { slug: string } };
};

describe("the running platform's embedded database, reached by other processes", () => {
  let dataDir: string;
  let platform: Launch;
  let manifest: LocalManifest;
  let credentials: Credentials;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "platform-embedded-"));
    // One in-process worker slot: the worker process beside it has posts left to claim.
    platform = launch(dataDir, { PUBLISHER_WORKER_CONCURRENCY: "1" });
    await waitFor(() => platform.output().includes("Ctrl-C stops everything"), "the banner", 120_000);
    manifest = await readManifest(dataDir);
    credentials = manifest.credentials as Credentials;
    return async () => {
      await interrupt(platform);
      await rm(dataDir, { recursive: true, force: true });
    };
  }, 150_000);
  afterAll(() => undefined);

  const publisher = (path: string, key: string, init: RequestInit = {}) =>
    fetch(`${manifest.services.publisher?.url}${path}`, {
      ...init,
      headers: { "x-api-key": key, "content-type": "application/json", ...init.headers },
    });

  it("prints and records where psql reaches it, and psql does", async () => {
    const url = manifest.database?.url as string;
    expect(platform.output()).toContain(`psql '${url}'`);
    const { stdout } = await execFileAsync("psql", [
      url,
      "-At",
      "-c",
      `SELECT id FROM publisher.accounts WHERE id = '${credentials.publisher.accountId}'`,
    ]);
    expect(stdout.trim()).toBe(credentials.publisher.accountId);
  });

  it("refuses a second npm start on the same folder, saying what holds it and what to do", {
    timeout: 60_000,
  }, async () => {
    const second = launch(dataDir);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`is in use by npm start (pid ${platform.child.pid}`);
    expect(second.output()).toContain(`connect through it: ${manifest.database?.url}`);
    expect(second.output()).not.toContain("    at ");
    expect((await fetch(`${manifest.services.publisher?.url}/healthz`)).status).toBe(200);
  });

  it("takes a publisher key made by the CLI at once, and refuses it once revoked", {
    timeout: 60_000,
  }, async () => {
    const created = await runCli(
      "publisher",
      ["keys", "create", "--account", credentials.publisher.accountId],
      dataDir,
    );
    expect(created.code, created.output).toBe(0);
    const { id, key } = JSON.parse(created.output) as { id: string; key: string };
    expect((await publisher("/api/v1/connections", key)).status).toBe(200);

    const listed = await runCli(
      "publisher",
      ["keys", "list", "--account", credentials.publisher.accountId],
      dataDir,
    );
    expect(listed.output).toContain(id);

    const revoked = await runCli("publisher", ["keys", "revoke", "--key", id], dataDir);
    expect(revoked.code, revoked.output).toBe(0);
    expect((await publisher("/api/v1/connections", key)).status).toBe(401);
  });

  it("takes a gateway key made by the CLI at once, and refuses it within its cache's second once revoked", {
    timeout: 60_000,
  }, async () => {
    const created = await runCli(
      "gateway",
      ["keys", "create", "--account", credentials.gateway.accountId],
      dataDir,
    );
    expect(created.code, created.output).toBe(0);
    const { id, key } = JSON.parse(created.output) as { id: string; key: string };
    const run = () =>
      fetch(`${manifest.services.gateway?.url}/v1/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({
          provider: "markets",
          endpoint: "/pm/event",
          method: "GET",
          input: { queryParams: { ref: credentials.markets.sampleRefs.slug } },
        }),
      });
    expect((await run()).status).toBe(200);
    const revoked = await runCli("gateway", ["keys", "revoke", "--key", id], dataDir);
    expect(revoked.code, revoked.output).toBe(0);
    const since = Date.now();
    let status = (await run()).status;
    while (status === 200 && Date.now() - since < GATEWAY_KEY_CACHE_MS + 1_000) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      status = (await run()).status;
    }
    expect(status).toBe(401);
  });

  it("publishes due posts exactly once with a worker process beside the platform's own", {
    timeout: 180_000,
  }, async () => {
    const worker = spawnEntry(
      "apps/local/src/worker.ts",
      [],
      localEnv(dataDir, { PUBLISHER_WORKER_POLL_MS: "100" }),
    );
    try {
      await waitFor(() => worker.output().includes("publisher workers running"), "the worker", 60_000);
      const dueAt = new Date(Date.now() + 3_000).toISOString();
      const posts: string[] = [];
      for (let index = 0; index < 30; index++) {
        const response = await publisher("/api/v1/schedule", credentials.publisher.apiKey, {
          method: "POST",
          body: JSON.stringify({
            caption: `beside the platform #${index}`,
            connectionIds: [credentials.publisher.connections.bluesky],
            scheduledFor: dueAt,
          }),
        });
        expect(response.status).toBe(200);
        posts.push(((await response.json()) as { postId: string }).postId);
      }
      // Read through the platform, as the CLIs do (the API's own rate limit would slow a poll).
      await waitFor(
        async () => {
          const [row] = await withStoredDatabase(dataDir, (db) =>
            db.query<{ published: number }>(
              "SELECT count(*)::int AS published FROM publisher.posts WHERE id = ANY($1) AND status = 'published'",
              [posts],
            ),
          );
          return row?.published === posts.length;
        },
        `every post to publish (worker: ${worker.output()})`,
        120_000,
      );
      const { records } = (await (
        await fetch(`${manifest.services.sandbox?.url}/_sandbox/bluesky/records`)
      ).json()) as {
        records: { value: { text: string } }[];
      };
      const texts = records
        .map((record) => record.value.text)
        .filter((text) => text.startsWith("beside the platform #"));
      expect(texts).toHaveLength(30);
      expect(new Set(texts).size).toBe(30);
      const byWorker = worker.output().match(/"msg":"published"/g) ?? [];
      expect(byWorker.length, worker.output()).toBeGreaterThan(0);
      expect(byWorker.length).toBeLessThanOrEqual(30);
    } finally {
      expect(await interrupt(worker)).toBe(0);
    }
  });
});
