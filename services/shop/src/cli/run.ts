import { commandLineTool } from "@app/runtime";
import { PriceError } from "../domain/money.ts";
import { OpeningHoursError } from "../domain/opening-hours.ts";
import { COMMANDS } from "./commands.ts";

export type { CliContext, CliIo } from "@app/runtime";

/** The shop owner's CLI (`shops create`, `keys create`, …). */
const cli = commandLineTool({
  program: "npm run shop --",
  commands: COMMANDS,
  isUsersMistake: (error) => error instanceof OpeningHoursError || error instanceof PriceError,
});

export const usage = cli.usage;
export const runCli = cli.run;
