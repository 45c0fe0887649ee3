import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export type LoadResult = { name: string; rps: number; p50: number; p99: number; errors: number };

/** Starts a bench server script in its own process (stdout discarded) and resolves with its port. */
export async function startServer(script: string): Promise<{ port: number; child: ChildProcess }> {
  const { message, child } = await forkServer<{ port: number }>(script);
  return { port: message.port, child };
}

/**
 * Forks a bench server script (stdout discarded, stderr shown) and resolves with the first
 * IPC message it sends (where it listens, and whatever else it reports), or rejects when
 * it exits first or sends nothing within `timeoutMs`.
 */
export function forkServer<Message>(
  script: string,
  timeoutMs = 120_000,
  env: Record<string, string> = {},
): Promise<{ message: Message; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), {
    execArgv: ["--import", "tsx"],
    env: { ...process.env, ...env },
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`${script} did not report within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once("message", (message: Message) => {
      clearTimeout(timer);
      resolve({ message, child });
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}`));
    });
  });
}

/** Sends a forked process one IPC message and resolves with its next one (rejects on exit or timeout). */
export function ask<Reply>(child: ChildProcess, message: unknown, timeoutMs: number): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => done(new Error(`child exited with ${code} before replying`));
    const onMessage = (reply: Reply) => done(undefined, reply);
    const timer = setTimeout(() => done(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
    function done(error?: Error, reply?: Reply) {
      clearTimeout(timer);
      child.off("exit", onExit);
      child.off("message", onMessage);
      if (error) reject(error);
      else resolve(reply as Reply);
    }
    child.once("exit", onExit);
    child.once("message", onMessage);
    child.send(message as never);
  });
}

/**
 * Asks a forked server to stop (IPC disconnect: it closes what it started) and waits for it
 * to exit; SIGTERM after `graceMs`, SIGKILL after twice that.
 */
export async function stopServer(child: ChildProcess, graceMs = 20_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  if (child.connected) child.disconnect();
  const term = setTimeout(() => child.kill("SIGTERM"), graceMs);
  const kill = setTimeout(() => child.kill("SIGKILL"), graceMs * 2);
  await exited;
  clearTimeout(term);
  clearTimeout(kill);
}

/**
 * Loads a URL for `seconds` after a warm-up and reports requests/s and latency percentiles (ms).
 * Responses with another status than `expectStatus` (default: any 2xx) count as errors.
 */
export async function load(
  name: string,
  url: string,
  seconds: number,
  connections = 32,
  options: { method?: "GET" | "POST"; expectStatus?: number; headers?: Record<string, string> } = {},
): Promise<LoadResult> {
  const method = options.method ?? "GET";
  const headers = options.headers ?? {};
  await autocannon({ url, connections, method, headers, duration: 1 });
  const result = await autocannon({ url, connections, method, headers, duration: seconds });
  const unexpected =
    options.expectStatus === undefined
      ? result.non2xx
      : Object.entries(result.statusCodeStats ?? {})
          .filter(([status]) => Number(status) !== options.expectStatus)
          .reduce((sum, [, stats]) => sum + stats.count, 0);
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + unexpected,
  };
}

export function printTable(title: string, rows: LoadResult[], baseline: LoadResult): void {
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(
    `  ${"case".padEnd(34)} ${"req/s".padStart(9)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} ${"vs bare".padStart(8)} errors\n`,
  );
  for (const row of rows) {
    const ratio = (row.rps / baseline.rps).toFixed(2);
    process.stdout.write(
      `  ${row.name.padEnd(34)} ${row.rps.toFixed(0).padStart(9)} ${String(row.p50).padStart(8)} ${String(row.p99).padStart(8)} ${ratio.padStart(8)} ${row.errors}\n`,
    );
  }
}
