import { type Env, loadConfig, settings, z } from "@app/core";
import type { RateRule } from "@app/edge";
import { type BaseServiceConfig, baseSettings, toBaseConfig } from "@app/runtime";

const count = (fallback: number) => settings.positiveInt(fallback, 1_000_000);
const seconds = (fallback: number) => settings.positiveInt(fallback, 86_400);

const variables = z.object({
  ...baseSettings("SHOP", 3004),
  SHOP_READ_LIMIT: count(120),
  SHOP_READ_WINDOW_SECONDS: seconds(60),
  SHOP_BOOKING_LIMIT: count(30),
  SHOP_BOOKING_WINDOW_SECONDS: seconds(600),
});

/** The limited actions of a shop key: availability reads and booking attempts, each its own limit. */
export type LimitedAction = "read" | "booking";

/** Per shop key, a fixed window per limited action. */
export type RateLimits = Record<LimitedAction, RateRule>;

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
