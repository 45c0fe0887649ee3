import { commandLineTool } from "@app/runtime";
import { COMMANDS, UsageError } from "./commands.ts";

export type { CliContext, CliIo } from "@app/runtime";

/** The publisher operator's CLI (`accounts create`, `keys create`, …). */
const cli = commandLineTool({
  program: "npm run publisher --",
  commands: COMMANDS,
  isUsersMistake: (error) => error instanceof UsageError,
});

export const usage = cli.usage;
export const runCli = cli.run;
