import { parseArgs } from "node:util";
import { type Clock, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { COMMANDS, UsageError } from "./commands.ts";

/** Where the CLI writes: results as JSON to `out`, problems to `err`. */
export type CliIo = { out(text: string): void; err(text: string): void };

/** How the CLI reaches its database: opened only for a command that needs it. */
export type CliContext = { openDatabase(): Promise<Database>; io: CliIo; clock?: Clock };

export function usage(): string {
  const lines = ["Usage: npm run publisher -- <command> [--option value …]", "", "Commands:"];
  for (const [name, command] of Object.entries(COMMANDS)) {
    const options = command.options.map((o) => (o.endsWith("?") ? `[--${o.slice(0, -1)} …]` : `--${o} …`));
    lines.push(`  ${[name, ...options].join(" ")}`, `      ${command.help}`);
  }
  return lines.join("\n");
}

const isUsersMistake = (error: unknown) => error instanceof UsageError;

/**
 * Runs one publisher command (`accounts create`, `keys create`, …) and returns the exit code:
 * 0 done (its result printed as JSON), 1 refused (the reason on `err`), 2 not a command.
 */
export async function runCli(argv: string[], context: CliContext): Promise<number> {
  const { io } = context;
  const [group, action, ...rest] = argv;
  const command = COMMANDS[`${group} ${action}`];
  if (!command) {
    const asked = group === "help" || group === "--help" || group === "-h" || group === undefined;
    (asked ? io.out : io.err)(usage());
    return asked ? 0 : 2;
  }
  let values: Record<string, string | undefined>;
  try {
    const options = Object.fromEntries(
      command.options.map((o) => [o.replace("?", ""), { type: "string" as const }]),
    );
    values = parseArgs({ args: rest, options, strict: true, allowPositionals: false })
      .values as typeof values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  const db = await context.openDatabase();
  try {
    const result = await command.run({ db, clock: context.clock ?? systemClock, options: values });
    io.out(JSON.stringify(result, null, 2));
    return 0;
  } catch (error) {
    if (!isUsersMistake(error)) throw error;
    io.err((error as Error).message);
    return 1;
  } finally {
    await db.close();
  }
}
