import { type LoadResult, load, printTable, startServer } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const TARGET = 0.8;
const ROUNDS = 5;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * Foundation benchmark: requests/s of a trivial route on a bare Hono app and on our
 * `createServiceApp` stack. Each round loads bare then ours back to back, so both
 * see the same machine; the ratio is the median of the rounds' ratios, which a
 * noisy neighbour moves far less than a ratio of two best-ofs.
 */
export async function benchHttpStack(): Promise<{ ratio: number }> {
  const bare = await startServer("./servers/bare.ts");
  const stack = await startServer("./servers/stack.ts");
  try {
    const runs: { bare: LoadResult[]; stack: LoadResult[] } = { bare: [], stack: [] };
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(await load("bare Hono", `http://127.0.0.1:${bare.port}/ping`, SECONDS));
      runs.stack.push(await load("createServiceApp stack", `http://127.0.0.1:${stack.port}/ping`, SECONDS));
    }
    const best = (rows: LoadResult[]) => rows.reduce((a, b) => (b.rps > a.rps ? b : a));
    const baseline = best(runs.bare);
    const ours = best(runs.stack);
    printTable(
      `HTTP stack, trivial GET, 32 connections, ${ROUNDS} paired rounds × ${SECONDS}s (best of each)`,
      [baseline, ours],
      baseline,
    );
    const ratios = runs.stack.map((row, round) => row.rps / (runs.bare[round] as LoadResult).rps);
    const ratio = median(ratios);
    process.stdout.write(
      `  stack / bare per round: ${ratios.map((r) => r.toFixed(2)).join(", ")}; median ${ratio.toFixed(2)} (target ≥ ${TARGET}: ${ratio >= TARGET ? "met" : "NOT met"})\n`,
    );
    return { ratio };
  } finally {
    bare.child.disconnect();
    stack.child.disconnect();
    bare.child.kill();
    stack.child.kill();
  }
}
