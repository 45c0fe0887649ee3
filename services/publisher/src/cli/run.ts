import { commandLineTool } from "@app/runtime";
import { COMMANDS } from "./commands.ts";

/** The publisher operator's CLI (`accounts create`, `keys create`, …). */
export const { usage, run: runCli } = commandLineTool({
  program: "npm run publisher --",
  commands: COMMANDS,
});
