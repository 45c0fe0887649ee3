import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({ ...baseSettings("FORTUNE", 3001) });

export type FortuneConfig = BaseServiceConfig;

/** Reads the fortune service's settings from the environment, once, failing fast on bad values. */
export function loadFortuneConfig(env: Env): FortuneConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["FORTUNE_"] });
  return toBaseConfig(parsed, parsed.FORTUNE_PORT);
}
