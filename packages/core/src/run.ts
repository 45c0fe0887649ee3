import { ConfigError } from "./config.ts";

export type Stoppable = { stop(): Promise<void> };

/**
 * Runs a process entry point: starts it, stops it cleanly on SIGINT/SIGTERM, and
 * turns a configuration error into one readable message and exit code 1.
 */
export async function runMain(start: () => Promise<Stoppable>): Promise<void> {
  let running: Stoppable;
  try {
    running = await start();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\n${signal} received, shutting down…\n`);
    await running.stop();
    process.exit(0);
  };
  process.once("SIGINT", () => void shutdown("SIGINT"));
  process.once("SIGTERM", () => void shutdown("SIGTERM"));
}
