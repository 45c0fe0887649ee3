/**
 * Bench client: connects to an embedded database through its owner's socket (the way the CLIs
 * and an extra worker do) and times statements on request, reporting over IPC.
 */
import { type Database, openDatabase } from "@app/db";
import { timeStatements } from "../embedded-db-statements.ts";

const db: Database = await openDatabase(
  { dataDir: process.env.BENCH_DATA_DIR as string },
  { holder: "bench client" },
);
process.on("message", async (message: { count: number }) => {
  process.send?.(await timeStatements(db, message.count));
});
process.on("disconnect", () => void db.close().then(() => process.exit(0)));
process.send?.({ ready: true });
