import { commandLineTool } from "@app/runtime";
import { COMMANDS } from "./commands.ts";

export type { CliContext, CliIo } from "@app/runtime";

/** The publisher operator's CLI (`accounts create`, `keys create`, …). */
const cli = commandLineTool({
  program: "npm run publisher --",
  commands: COMMANDS,
});

export const usage = cli.usage;
export const runCli = cli.run;
