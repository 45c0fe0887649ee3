import type { Database } from "@app/db";

export type StatementTimes = { name: string; perSecond: number; p50: number; p99: number };

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Times `count` point reads and `count` single-row inserts, one after another (ms per statement). */
export async function timeStatements(db: Database, count: number): Promise<StatementTimes[]> {
  const kinds: [string, (i: number) => Promise<unknown>][] = [
    ["point read", (i) => db.query("SELECT n FROM public.bench_rows WHERE n = $1", [i % 1000])],
    ["insert", (i) => db.query("INSERT INTO public.bench_rows (n) VALUES ($1)", [i])],
  ];
  const results: StatementTimes[] = [];
  for (const [name, run] of kinds) {
    for (let i = 0; i < 100; i++) await run(i);
    const times: number[] = [];
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const at = performance.now();
      await run(i);
      times.push(performance.now() - at);
    }
    const elapsed = performance.now() - started;
    times.sort((a, b) => a - b);
    results.push({
      name,
      perSecond: (count / elapsed) * 1000,
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
    });
  }
  return results;
}
