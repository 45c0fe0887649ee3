import { commandLineTool } from "@app/runtime";
import { PriceError } from "../domain/money.ts";
import { OpeningHoursError } from "../domain/opening-hours.ts";
import { COMMANDS } from "./commands.ts";

/** The shop owner's CLI (`shops create`, `keys create`, …). */
export const { usage, run: runCli } = commandLineTool({
  program: "npm run shop --",
  commands: COMMANDS,
  isUsersMistake: (error) => error instanceof OpeningHoursError || error instanceof PriceError,
});
