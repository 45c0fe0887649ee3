import { commandLineTool } from "@app/runtime";
import { COMMANDS } from "./commands.ts";

export type { CliContext, CliIo } from "@app/runtime";

/** The gateway operator's CLI (`accounts create`, `keys create`, `credit`, …). */
const cli = commandLineTool({
  program: "npm run gateway --",
  commands: COMMANDS,
});

export const usage = cli.usage;
export const runCli = cli.run;
