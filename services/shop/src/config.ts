import { type Env, loadConfig, z } from "@app/core";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";
import type { RateLimits } from "./domain/rate-limit.ts";

const count = (fallback: number) => z.coerce.number().int().min(1).max(1_000_000).default(fallback);
const seconds = (fallback: number) => z.coerce.number().int().min(1).max(86_400).default(fallback);

const variables = z.object({
  ...baseSettings("SHOP", 3004),
  SHOP_READ_LIMIT: count(120),
  SHOP_READ_WINDOW_SECONDS: seconds(60),
  SHOP_BOOKING_LIMIT: count(30),
  SHOP_BOOKING_WINDOW_SECONDS: seconds(600),
});

export type ShopConfig = BaseServiceConfig & {
  /** Per shop key: availability reads and booking attempts per fixed window. */
  limits: RateLimits;
};

/** The limits the spec sets, for code that needs them without reading the environment. */
export const DEFAULT_LIMITS: RateLimits = {
  read: { limit: 120, windowSeconds: 60 },
  booking: { limit: 30, windowSeconds: 600 },
};

/** Reads the shop service's settings from the environment, once, failing fast on bad values. */
export function loadShopConfig(env: Env): ShopConfig {
  const parsed = loadConfig(variables, env, { prefixes: ["SHOP_"] });
  return {
    ...toBaseConfig(parsed, parsed.SHOP_PORT),
    limits: {
      read: { limit: parsed.SHOP_READ_LIMIT, windowSeconds: parsed.SHOP_READ_WINDOW_SECONDS },
      booking: { limit: parsed.SHOP_BOOKING_LIMIT, windowSeconds: parsed.SHOP_BOOKING_WINDOW_SECONDS },
    },
  };
}
