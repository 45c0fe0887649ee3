import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";
import { MICRO, parseMicro } from "./domain/units.ts";

const usdAmount = z
  .string()
  .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a USD amount like 10000 or 2500.50")
  .refine((value) => (parseMicro(value) ?? 0n) > 0n, "must be above zero");

const variables = z.object({
  ...baseSettings("MARKETS", 3005),
  MARKETS_STARTING_BALANCE: usdAmount.default("10000"),
  MARKETS_OPERATOR_TOKEN: z.string().min(32, "must be at least 32 characters").optional(),
});

export type MarketsConfig = BaseServiceConfig & {
  /** What a new paper account starts with, in micro-USD. */
  startingBalanceMicro: bigint;
  /** The bearer token of the resolution route; unset, no one can resolve markets. */
  operatorToken?: string;
};

/** Reads the markets service's settings from the environment, once, failing fast on bad values. */
export function loadMarketsConfig(env: Env): MarketsConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["MARKETS_"] });
  return {
    ...toBaseConfig(parsed, parsed.MARKETS_PORT),
    startingBalanceMicro: parseMicro(parsed.MARKETS_STARTING_BALANCE) ?? 10_000n * MICRO,
    operatorToken: parsed.MARKETS_OPERATOR_TOKEN,
  };
}
