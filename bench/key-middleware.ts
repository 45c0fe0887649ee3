import { type LoadResult, load, printTable, startServer } from "./lib.ts";
import { BENCH_KEY } from "./servers/bench-key.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = 5;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * A key-protected trivial route behind the guard the services had before `@app/edge` (a module
 * `WeakMap`) and behind the shared `apiKeyAuth`, on one server, loaded in paired rounds. The
 * shared middleware should cost no more: new / old ≥ 0.95 at the median.
 */
export async function benchKeyMiddleware(): Promise<{ ratio: number }> {
  const server = await startServer("./servers/keyed.ts");
  const headers = { "x-api-key": BENCH_KEY };
  try {
    const runs: { old: LoadResult[]; shared: LoadResult[] } = { old: [], shared: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.old.push(
        await load("WeakMap guard (before)", `http://127.0.0.1:${server.port}/old`, SECONDS, 32, { headers }),
      );
      runs.shared.push(
        await load("apiKeyAuth (shared)", `http://127.0.0.1:${server.port}/new`, SECONDS, 32, { headers }),
      );
    }
    const best = (rows: LoadResult[]) => rows.reduce((a, b) => (b.rps > a.rps ? b : a));
    const baseline = best(runs.old);
    printTable(
      `Key middleware, trivial keyed GET, 32 connections, ${ROUNDS} paired rounds × ${SECONDS}s (best of each)`,
      [baseline, best(runs.shared)],
      baseline,
    );
    const ratios = runs.shared.map((row, round) => row.rps / (runs.old[round] as LoadResult).rps);
    const ratio = median(ratios);
    process.stdout.write(
      `  shared / before per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${ratio.toFixed(2)} (target ≥ 0.95: ${ratio >= 0.95 ? "met" : "NOT met"})\n`,
    );
    return { ratio };
  } finally {
    server.child.disconnect();
    server.child.kill();
  }
}
