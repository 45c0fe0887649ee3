import { commandLineTool } from "@app/runtime";
import { COMMANDS } from "./commands.ts";

/** The gateway operator's CLI (`accounts create`, `keys create`, `credit`, …). */
export const { usage, run: runCli } = commandLineTool({
  program: "npm run gateway --",
  commands: COMMANDS,
});
