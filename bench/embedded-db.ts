import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@app/db";
import { type StatementTimes, timeStatements } from "./embedded-db-statements.ts";
import { ask, forkServer, stopServer } from "./lib.ts";

const ROUNDS = 3;
const STATEMENTS = Number(process.env.BENCH_DB_STATEMENTS ?? 2_000);

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

/**
 * The embedded database's second path: one statement at a time in the owning process (PGlite in
 * process) against the same statement from another process through the owner's socket (how the
 * CLIs, an extra worker and psql reach it). Paired rounds, medians.
 */
export async function benchEmbeddedDatabase(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-embedded-"));
  const owner = await openDatabase({ dataDir }, { role: "owner", holder: "bench" });
  await owner.exec(
    "CREATE TABLE public.bench_rows (n int NOT NULL); CREATE INDEX ON public.bench_rows (n); INSERT INTO public.bench_rows SELECT g FROM generate_series(0, 999) g",
  );
  const { child } = await forkServer<{ ready: boolean }>("./servers/embedded-db-client.ts", 60_000, {
    BENCH_DATA_DIR: dataDir,
  });
  try {
    const rounds: { local: StatementTimes[]; socket: StatementTimes[] }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const local = await timeStatements(owner, STATEMENTS);
      const socket = await ask<StatementTimes[]>(child, { count: STATEMENTS }, 300_000);
      rounds.push({ local, socket });
    }
    process.stdout.write(
      `\nEmbedded database: one statement at a time, in the owning process vs another process through its socket (${ROUNDS} paired rounds × ${STATEMENTS}; medians)\n`,
    );
    process.stdout.write(
      `  ${"statement".padEnd(12)} ${"path".padEnd(16)} ${"per s".padStart(8)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)}\n`,
    );
    for (const [index, name] of ["point read", "insert"].entries()) {
      const pick = (side: "local" | "socket", field: keyof Omit<StatementTimes, "name">) =>
        median(rounds.map((round) => (round[side][index] as StatementTimes)[field]));
      for (const [side, label] of [
        ["local", "in process"],
        ["socket", "through socket"],
      ] as const) {
        process.stdout.write(
          `  ${name.padEnd(12)} ${label.padEnd(16)} ${pick(side, "perSecond").toFixed(0).padStart(8)} ${pick(side, "p50").toFixed(3).padStart(8)} ${pick(side, "p99").toFixed(3).padStart(8)}\n`,
        );
      }
      const added = pick("socket", "p50") - pick("local", "p50");
      const ratio = pick("socket", "perSecond") / pick("local", "perSecond");
      process.stdout.write(
        `  ${name}: the socket adds ${added.toFixed(3)} ms at p50; throughput ${ratio.toFixed(2)} of in process\n`,
      );
    }
  } finally {
    await stopServer(child);
    await owner.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
