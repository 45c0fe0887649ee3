import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({ ...baseSettings("MARKETS", 3005) });

export type MarketsConfig = BaseServiceConfig;

/** Reads the markets service's settings from the environment, once, failing fast on bad values. */
export function loadMarketsConfig(env: Env): MarketsConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["MARKETS_"] });
  return toBaseConfig(parsed, parsed.MARKETS_PORT);
}
