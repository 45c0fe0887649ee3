import {
  closeSync,
  createWriteStream,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { createServer } from "node:http";
import { type AddressInfo, createServer as createNetServer, Socket } from "node:net";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { setFlagsFromString } from "node:v8";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { createAccount, createApiKey } from "../../services/publisher/src/store/accounts.ts";
import { serveForBench } from "./service.ts";

/** What the publisher bench server reports: where it listens, a media:write key, where media lands. */
export type PublisherServerInfo = {
  url: string;
  apiKey: string;
  storageDir: string;
  bareUrl: string;
  ceilingUrl: string;
};

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
 * For explorations only: V8 flags set in this server as it starts (`NODE_OPTIONS` refuses most
 * V8 flags), e.g. `BENCH_UPLOAD_V8_FLAGS=--external-memory-accounted-in-global-limit`.
 */
if (process.env.BENCH_UPLOAD_V8_FLAGS) setFlagsFromString(process.env.BENCH_UPLOAD_V8_FLAGS);

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
 * A third baseline, the loopback ceiling for a Node receiver: a plain `node:net` server that reads
 * each connection straight into one reused 1 MiB buffer (`onread`, no stream, no HTTP parser: the
 * head is split off by hand) and writes every read to a file with `writeSync`
 * (`<storageDir>/../ceiling/ceiling-<n>.bin`, removed at once). One request per connection; no
 * checks beyond the Content-Length; only for the bench.
 */
async function serveCeiling(): Promise<string> {
  const dir = join(storageDir, "..", "ceiling");
  await mkdir(dir, { recursive: true });
  let count = 0;
  const buffer = Buffer.allocUnsafe(1024 * 1024);
  const server = createNetServer({ pauseOnConnect: true }, (accepted) => {
    const file = join(dir, `ceiling-${count++}.bin`);
    const fd = openSync(file, "wx");
    let head = "";
    let length = -1;
    let received = 0;
    let open = true;
    const finish = () => {
      if (!open) return;
      open = false;
      closeSync(fd);
      rmSync(file, { force: true });
    };
    // Re-wrapped so that every read lands in `buffer` (a socket takes `onread` only when made).
    const socket = new Socket({
      handle: (accepted as unknown as { _handle: unknown })._handle as never,
      onread: {
        buffer,
        callback(size) {
          let body = buffer.subarray(0, size);
          if (length < 0) {
            const before = head.length;
            head += body.toString("latin1");
            const end = head.indexOf("\r\n\r\n");
            if (end < 0) return true;
            length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
            if (/\r\nexpect:\s*100-continue/i.test(head)) socket.write("HTTP/1.1 100 Continue\r\n\r\n");
            body = body.subarray(end + 4 - before);
          }
          for (let at = 0; at < body.length; ) at += writeSync(fd, body, at);
          received += body.length;
          if (received >= length) {
            finish();
            socket.end(
              "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}",
            );
          }
          return true;
        },
      },
    });
    socket.on("error", () => undefined);
    socket.on("close", finish);
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  process.once("disconnect", () => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * The publisher API alone (no workers: uploads only), PGlite in a temp DATA_DIR, media in
 * `BENCH_STORAGE_DIR` (on the same disk as the bench's file), and two upload baselines in the
 * same process: bare `node:http` into a file, and a plain `node:net` socket into a file. Asked `"rss-start"` over IPC it
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
      ceilingUrl: await serveCeiling(),
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
