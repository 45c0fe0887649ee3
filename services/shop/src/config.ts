import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const variables = z.object({ ...baseSettings("SHOP", 3004) });

export type ShopConfig = BaseServiceConfig;

/** Reads the shop service's settings from the environment, once, failing fast on bad values. */
export function loadShopConfig(env: Env): ShopConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["SHOP_"] });
  return toBaseConfig(parsed, parsed.SHOP_PORT);
}
