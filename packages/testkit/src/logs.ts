import { Writable } from "node:stream";
import { createLogger, type Logger } from "@app/core";

/** A logger whose JSON lines are kept in memory, for asserting on what was logged. */
export function captureLogs(level = "info"): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ name: "test", level }, sink), lines };
}

/** A logger that writes nothing. */
export function silentLogger(): Logger {
  return createLogger({ name: "test", level: "silent" });
}
