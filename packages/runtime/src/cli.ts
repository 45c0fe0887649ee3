import { parseArgs } from "node:util";
import { type Clock, systemClock } from "@app/core";
import type { Database } from "@app/db";

/** Where a CLI writes: results as JSON to `out`, problems to `err`. */
export type CliIo = { out(text: string): void; err(text: string): void };

/** How a CLI reaches its database: opened only for a command that needs it. */
export type CliContext = { openDatabase(): Promise<Database>; io: CliIo; clock?: Clock };

/** A command's `--option value` arguments, by option name. */
export type CliOptions = Record<string, string | undefined>;

/** One command: its options (`name` required, `name?` optional), a line of help, what it does. */
export type CliCommand = {
  options: string[];
  help: string;
  run(context: { db: Database; clock: Clock; options: CliOptions }): Promise<unknown>;
};

/** A mistake in the command line, reported to the operator without a stack trace. */
export class CliUsageError extends Error {
  override name = "CliUsageError";
}

/** The trimmed value of a required option; {@link CliUsageError} when it is missing or blank. */
export function requiredOption(options: CliOptions, name: string): string {
  const value = options[name]?.trim();
  if (!value) throw new CliUsageError(`--${name} is required.`);
  return value;
}

export type CommandLineTool = {
  usage(): string;
  /** Runs one command; the exit code: 0 done (result printed as JSON), 1 refused, 2 not a command. */
  run(argv: string[], context: CliContext): Promise<number>;
};

/**
 * A service's operator CLI (`npm run shop -- keys create …`): commands named by one or two
 * words, `--option value` arguments, JSON results (bigints as strings), and the caller's mistakes
 * ({@link CliUsageError}, and whatever else `isUsersMistake` names) answered on `err` with exit 1
 * rather than thrown.
 */
export function commandLineTool(spec: {
  program: string;
  commands: Record<string, CliCommand>;
  isUsersMistake?(error: unknown): boolean;
}): CommandLineTool {
  const usage = () => {
    const lines = [`Usage: ${spec.program} <command> [--option value …]`, "", "Commands:"];
    for (const [name, command] of Object.entries(spec.commands)) {
      const options = command.options.map((o) => (o.endsWith("?") ? `[--${o.slice(0, -1)} …]` : `--${o} …`));
      lines.push(`  ${[name, ...options].join(" ")}`, `      ${command.help}`);
    }
    return lines.join("\n");
  };
  const commandOf = (argv: string[]) => {
    const [first = "", second = ""] = argv;
    const twoWords = spec.commands[`${first} ${second}`];
    if (twoWords) return { command: twoWords, rest: argv.slice(2) };
    const oneWord = spec.commands[first];
    return oneWord ? { command: oneWord, rest: argv.slice(1) } : undefined;
  };
  return {
    usage,
    async run(argv, context) {
      const { io } = context;
      const found = commandOf(argv);
      if (!found) {
        const asked = argv[0] === undefined || ["help", "--help", "-h"].includes(argv[0]);
        (asked ? io.out : io.err)(usage());
        return asked ? 0 : 2;
      }
      let values: CliOptions;
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
        if (!(error instanceof CliUsageError || spec.isUsersMistake?.(error))) throw error;
        io.err((error as Error).message);
        return 1;
      } finally {
        await db.close();
      }
    },
  };
}
