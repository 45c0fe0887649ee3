import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Launch, launch, readManifest, runCli, waitFor, withStoredDatabase } from "./support/launch.ts";

const CYCLES = 20;
const SLIM_PLATFORM = "apps/local/test/support/slim-platform.ts";

type Credentials = { publisher: { accountId: string; apiKey: string; connections: { bluesky: string } } };

/** Keeps writing posts through the API until stopped; the ids the API acknowledged with 200. */
function writePosts(url: string, credentials: Credentials, cycle: number) {
  const acknowledged: string[] = [];
  let stopped = false;
  const done = (async () => {
    for (let index = 0; !stopped; index++) {
      try {
        const response = await fetch(`${url}/api/v1/schedule`, {
          method: "POST",
          headers: { "x-api-key": credentials.publisher.apiKey, "content-type": "application/json" },
          body: JSON.stringify({
            caption: `cycle ${cycle} post ${index}`,
            connectionIds: [credentials.publisher.connections.bluesky],
            scheduledFor: "2099-01-01T00:00:00Z",
          }),
        });
        if (response.status !== 200) continue;
        acknowledged.push(((await response.json()) as { postId: string }).postId);
      } catch {
        return; // the platform is gone
      }
    }
  })();
  return {
    acknowledged,
    stop: () => {
      stopped = true;
      return done;
    },
  };
}

describe("the embedded database under crashes", () => {
  it(`loses no acknowledged write over ${CYCLES} cycles of CLI calls and API writes ended by SIGKILL`, {
    timeout: 900_000,
  }, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "platform-crash-"));
    const posts: string[] = [];
    const keys: string[] = [];
    let platform: Launch | undefined;
    try {
      for (let cycle = 0; cycle < CYCLES; cycle++) {
        platform = launch(dataDir, { PUBLISHER_RATE_LIMIT: "1000000", LOG_LEVEL: "warn" }, SLIM_PLATFORM);
        const current = platform;
        await waitFor(
          () => current.output().includes("slim platform up") || current.child.exitCode !== null,
          `start ${cycle}`,
          120_000,
        );
        expect(current.output(), `start ${cycle}`).toContain("slim platform up");
        const manifest = await readManifest(dataDir);
        const credentials = manifest.credentials as Credentials;

        // Whatever earlier cycles had acknowledged is all there.
        await withStoredDatabase(dataDir, async (db) => {
          const [found] = await db.query<{ posts: number; keys: number }>(
            `SELECT (SELECT count(*)::int FROM publisher.posts WHERE id = ANY($1)) AS posts,
                    (SELECT count(*)::int FROM publisher.api_keys WHERE id = ANY($2)) AS keys`,
            [posts, keys],
          );
          expect(found, `after cycle ${cycle - 1}`).toEqual({ posts: posts.length, keys: keys.length });
        });

        const writer = writePosts(manifest.services.publisher?.url as string, credentials, cycle);
        const cli = runCli(
          "publisher",
          ["keys", "create", "--account", credentials.publisher.accountId],
          dataDir,
        );
        await new Promise((resolve) => setTimeout(resolve, 200 + Math.random() * 1_500));
        current.child.kill("SIGKILL");
        await current.exited;
        await writer.stop();
        posts.push(...writer.acknowledged);
        const made = await cli;
        if (made.code === 0) keys.push((JSON.parse(made.output) as { id: string }).id);
      }
    } finally {
      platform?.child.kill("SIGKILL");
    }
    // The last cycle's writes, read with no platform running: the folder opened alone.
    await withStoredDatabase(dataDir, async (db) => {
      const [found] = await db.query<{ posts: number; keys: number }>(
        `SELECT (SELECT count(*)::int FROM publisher.posts WHERE id = ANY($1)) AS posts,
                (SELECT count(*)::int FROM publisher.api_keys WHERE id = ANY($2)) AS keys`,
        [posts, keys],
      );
      expect(found).toEqual({ posts: posts.length, keys: keys.length });
    });
    process.stdout.write(
      `${CYCLES} SIGKILL cycles: ${posts.length} posts and ${keys.length} keys acknowledged, all found\n`,
    );
    expect(posts.length).toBeGreaterThan(CYCLES);
    expect(keys.length).toBeGreaterThan(0);
    await rm(dataDir, { recursive: true, force: true });
  });
});
