import { parseArgs } from "node:util";
import { type Clock, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { COMMANDS, type Command, UsageError } from "./commands.ts";

/** Where the CLI writes: results as JSON to `out`, problems to `err`. */
export type CliIo = { out(text: string): void; err(text: string): void };

/** How the CLI reaches its database: opened only for a command that needs it. */
export type CliContext = { openDatabase(): Promise<Database>; io: CliIo; clock?: Clock };

export function usage(): string {
  const lines = ["Usage: npm run gateway -- <command> [--option value …]", "", "Commands:"];
  for (const [name, command] of Object.entries(COMMANDS)) {
    const options = command.options.map((o) => (o.endsWith("?") ? `[--${o.slice(0, -1)} …]` : `--${o} …`));
    lines.push(`  ${[name, ...options].join(" ")}`, `      ${command.help}`);
  }
  return lines.join("\n");
}

/** The command named by the first one or two words, and the arguments after them. */
function commandOf(argv: string[]): { command: Command; rest: string[] } | undefined {
  const [first = "", second = ""] = argv;
  const twoWords = COMMANDS[`${first} ${second}`];
  if (twoWords) return { command: twoWords, rest: argv.slice(2) };
  const oneWord = COMMANDS[first];
  return oneWord ? { command: oneWord, rest: argv.slice(1) } : undefined;
}

/**
 * Runs one operator command (`accounts create`, `keys create`, `credit`, …) and returns the exit
 * code: 0 done (its result printed as JSON), 1 refused (the reason on `err`), 2 not a command.
 */
export async function runCli(argv: string[], context: CliContext): Promise<number> {
  const { io } = context;
  const found = commandOf(argv);
  if (!found) {
    const asked = argv[0] === undefined || ["help", "--help", "-h"].includes(argv[0]);
    (asked ? io.out : io.err)(usage());
    return asked ? 0 : 2;
  }
  let values: Record<string, string | undefined>;
  try {
    const options = Object.fromEntries(
      found.command.options.map((o) => [o.replace("?", ""), { type: "string" as const }]),
    );
    values = parseArgs({ args: found.rest, options, strict: true, allowPositionals: false })
      .values as typeof values;
  } catch (error) {
    io.err(`${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  const db = await context.openDatabase();
  try {
    const result = await found.command.run({ db, clock: context.clock ?? systemClock, options: values });
    io.out(
      JSON.stringify(result, (_key, value) => (typeof value === "bigint" ? value.toString() : value), 2),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(error.message);
    return 1;
  } finally {
    await db.close();
  }
}
