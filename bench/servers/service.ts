import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Database, openDatabase } from "@app/db";
import { type ServiceDefinition, type StartedService, startService } from "@app/runtime";

/**
 * Runs one service as its own process for a bench: free loopback port, PGlite in a temporary
 * DATA_DIR, access log at info to a discarded stdout; `report` builds what is sent to the bench
 * once it listens; `answer` replies to the bench's later IPC messages (undefined: no reply).
 * Stops and cleans up when the bench disconnects or signals.
 */
export async function serveForBench<Message>(
  definition: ServiceDefinition<never>,
  env: Record<string, string>,
  report: (service: StartedService, db: Database) => Promise<Message>,
  answer?: (message: unknown) => unknown,
): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), `bench-${definition.name}-`));
  const config = definition.loadConfig({ HOST: "127.0.0.1", DATA_DIR: dataDir, LOG_LEVEL: "info", ...env });
  const db = await openDatabase({ dataDir });
  const service = await startService(definition, config, db);
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      await service.stop();
      await db.close();
      await rm(dataDir, { recursive: true, force: true });
      process.exit(0);
    })();
    return stopping;
  };
  process.on("disconnect", () => void shutdown());
  process.once("SIGTERM", () => void shutdown());
  if (answer) {
    process.on("message", (message) => {
      const reply = answer(message);
      if (reply !== undefined) process.send?.(reply as never);
    });
  }
  process.send?.(await report(service, db));
}
