import { ConfigError } from "./config.ts";

export type Stoppable = { stop(): Promise<void> };

/**
 * Runs a process entry point: starts it, stops it cleanly on SIGINT/SIGTERM, and
 * turns a failed start (a bad setting, a port in use) into one readable message and
 * exit code 1.
 */
export async function runMain(start: () => Promise<Stoppable>): Promise<void> {
  let running: Stoppable;
  try {
    running = await start();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const detail =
      !(error instanceof ConfigError) && process.env.DEBUG_START === "1" && error instanceof Error;
    process.stderr.write(
      error instanceof ConfigError ? `${message}\n` : `Could not start: ${detail ? error.stack : message}\n`,
    );
    process.exit(1);
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
