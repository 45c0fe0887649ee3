import { type LoadResult, load, printTable, startServer } from "./lib.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const TARGET = 0.8;
const ROUNDS = 3;

/**
 * Foundation benchmark: requests/s of a trivial route on a bare Hono app and on our
 * `createServiceApp` stack, alternating rounds so both see the same machine state.
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
      `HTTP stack, trivial GET, 32 connections, best of ${ROUNDS} × ${SECONDS}s`,
      [baseline, ours],
      baseline,
    );
    const ratio = ours.rps / baseline.rps;
    process.stdout.write(
      `  stack / bare = ${ratio.toFixed(2)} (target ≥ ${TARGET}: ${ratio >= TARGET ? "met" : "NOT met"})\n`,
    );
    return { ratio };
  } finally {
    bare.child.disconnect();
    stack.child.disconnect();
    bare.child.kill();
    stack.child.kill();
  }
}
