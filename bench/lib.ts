import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";

export type LoadResult = { name: string; rps: number; p50: number; p99: number; errors: number };

/** Starts a bench server script in its own process (stdout discarded) and resolves with its port. */
export function startServer(script: string): Promise<{ port: number; child: ChildProcess }> {
  const child = fork(fileURLToPath(new URL(script, import.meta.url)), {
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "ignore", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    child.once("message", (message: { port: number }) => resolve({ port: message.port, child }));
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
}

/** Loads a URL for `seconds` after a warm-up and reports requests/s and latency percentiles (ms). */
export async function load(
  name: string,
  url: string,
  seconds: number,
  connections = 32,
): Promise<LoadResult> {
  await autocannon({ url, connections, duration: 1 });
  const result = await autocannon({ url, connections, duration: seconds });
  return {
    name,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
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
