import { createWriteStream, readFileSync, writeFileSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { createAccount, createApiKey } from "../../services/publisher/src/store/accounts.ts";
import { serveForBench } from "./service.ts";

/** What the publisher bench server reports: where it listens, a media:write key, where media lands. */
export type PublisherServerInfo = { url: string; apiKey: string; storageDir: string; bareUrl: string };

/** Resident memory over one upload: at the start, the highest sample, and the kernel's high-water mark. */
export type RssReport = { startBytes: number; peakBytes: number; hwmBytes?: number; samples: number };

const SAMPLE_MS = 5;
let sampler: { timer: NodeJS.Timeout; start: number; peak: number; samples: number } | undefined;

/** VmHWM (peak resident set) of this process in bytes; undefined off Linux. */
function highWaterMark(): number | undefined {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const storageDir = process.env.BENCH_STORAGE_DIR ?? "";

/**
 * A second baseline in this same process: bare `node:http` piping any request body into a file
 * (`<storageDir>/bare-<n>.bin`, removed at once), with no framework, route, auth or checks.
 */
async function serveBare(): Promise<string> {
  const dir = join(storageDir, "..", "bare");
  await mkdir(dir, { recursive: true });
  let count = 0;
  const server = createServer((req, res) => {
    const file = join(dir, `bare-${count++}.bin`);
    pipeline(req, createWriteStream(file, { flags: "wx" }))
      .then(() => rm(file, { force: true }))
      .then(
        () => res.writeHead(200, { "content-type": "application/json" }).end("{}"),
        () => res.writeHead(500).end(),
      );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.once("disconnect", () => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The publisher API alone (no workers: uploads only), PGlite in a temp DATA_DIR, media in
 * `BENCH_STORAGE_DIR` (on the same disk as the bench's file), and a bare `node:http` upload
 * baseline in the same process. Asked `"rss-start"` over IPC it
 * samples its resident memory every 5 ms (and resets the kernel's peak where allowed) until asked
 * `"rss-stop"`, which answers an {@link RssReport}.
 */
await serveForBench(
  publisherService as ServiceDefinition<never>,
  {
    PUBLISHER_PORT: "0",
    PUBLISHER_TOKEN_SECRET: "publisher-bench-token-secret-0123456789abcdef",
    PUBLISHER_WORKERS: "false",
    PUBLISHER_RATE_LIMIT: "1000000",
    PUBLISHER_STORAGE_DIR: storageDir,
  },
  async (service, db) => {
    const account = await createAccount(db, { name: "Upload bench" });
    const { key } = await createApiKey(db, { accountId: account.id, scopes: ["media:write"] });
    return {
      url: service.url,
      apiKey: key,
      storageDir,
      bareUrl: await serveBare(),
    } satisfies PublisherServerInfo;
  },
  (message) => {
    if (message === "rss-start") {
      if (sampler) clearInterval(sampler.timer);
      try {
        // "5" resets the peak resident set (VmHWM) to the current one (Linux ≥ 4.0).
        writeFileSync("/proc/self/clear_refs", "5");
      } catch {
        // Not allowed here: the samples alone tell the peak.
      }
      const start = process.memoryUsage.rss();
      const state = { start, peak: start, samples: 1, timer: undefined as unknown as NodeJS.Timeout };
      state.timer = setInterval(() => {
        const rss = process.memoryUsage.rss();
        state.samples += 1;
        if (rss > state.peak) state.peak = rss;
      }, SAMPLE_MS);
      sampler = state;
      return { startBytes: start };
    }
    if (message === "rss-stop" && sampler) {
      clearInterval(sampler.timer);
      const rss = process.memoryUsage.rss();
      const report: RssReport = {
        startBytes: sampler.start,
        peakBytes: Math.max(sampler.peak, rss),
        hwmBytes: highWaterMark(),
        samples: sampler.samples + 1,
      };
      sampler = undefined;
      return report;
    }
    return undefined;
  },
);
