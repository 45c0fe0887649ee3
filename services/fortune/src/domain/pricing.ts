import { usdToAtomic } from "./money.ts";

/** The price list of every paid route, in USD. */
export const PRICES = {
  fortune: "0.001",
  premiumMax: "0.005",
  membershipMax: "0.005",
  membershipCharge: "0.002",
  dynamicMax: "1.00",
  llmUnit: "0.001",
  llmSessionMax: "0.01",
  streamUnit: "0.0001",
  streamSessionMax: "0.05",
} as const;

export const DEPTHS = ["brief", "detailed", "comprehensive"] as const;
export type Depth = (typeof DEPTHS)[number];

const DEPTH_PRICE: Record<Depth, string> = { brief: "0.01", detailed: "0.03", comprehensive: "0.05" };

/** The dynamic route's price: by depth, any category, never above the route's maximum. */
export function dynamicPrice(depth: Depth): string {
  const price = DEPTH_PRICE[depth];
  if (usdToAtomic(price) > usdToAtomic(PRICES.dynamicMax)) throw new Error(`Price over the cap: ${price}`);
  return price;
}

/**
 * The premium handler's charge: what a reading of this category costs, always more
 * than zero and at most the authorised maximum.
 */
export function premiumCharge(category: PremiumCategory): string {
  return PREMIUM_CHARGE[category];
}

export const PREMIUM_CATEGORIES = ["love", "career", "health"] as const;
export type PremiumCategory = (typeof PREMIUM_CATEGORIES)[number];

const PREMIUM_CHARGE: Record<PremiumCategory, string> = { love: "0.003", career: "0.004", health: "0.0025" };
