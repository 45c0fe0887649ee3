import type { ServiceApp } from "@app/core";
import { errorResponseSpec, z } from "@app/core";
import { type ApiKeyMiddleware, apiKeyAuth, type RateLimiter } from "@app/edge";
import type { LimitedAction } from "../config.ts";
import { ShopError } from "../errors.ts";
import type { Scheduler } from "../scheduler.ts";
import type { ShopKeyHolder, ShopKeys } from "../store/keys.ts";

/** What the shop routes are built from. */
export type RouteDeps = {
  scheduler: Scheduler;
  keys: ShopKeys;
  /** Per shop key (subject: the key id), one fixed window per limited action. */
  limiters: Record<LimitedAction, RateLimiter>;
};

export type ShopApp = ServiceApp;

/** The request header that carries a shop API key. */
export const SHOP_KEY_HEADER = "x-shop-key";

export const SHOP_KEY_SECURITY = [{ shopKey: [] }];

/** The error responses every route behind a shop key can give. */
export const SHOP_KEY_RESPONSES = {
  401: errorResponseSpec("Missing, unknown or revoked shop key (UNAUTHORIZED)"),
  429: errorResponseSpec("Too many requests for this shop key (RATE_LIMITED); see Retry-After"),
} as const;

const ACTION_NAMES: Record<LimitedAction, string> = {
  read: "availability reads",
  booking: "booking requests",
};

/**
 * Route middleware, run before the request is validated: the shop key must be valid and not
 * revoked (401), then the request is counted against the key's limit for `action` (429 with
 * `Retry-After`; the `RateLimit-*` headers on every answer). The key's holder is then
 * `c.var.caller`.
 */
export function shopKeyGuard(deps: RouteDeps, action: LimitedAction): ApiKeyMiddleware<ShopKeyHolder> {
  return apiKeyAuth({
    source: { header: SHOP_KEY_HEADER },
    verify: (key) => deps.keys.authenticate(key),
    messages: {
      missing: `Send your shop key in the ${SHOP_KEY_HEADER} header.`,
      invalid: "This shop key is not valid, or it was revoked.",
    },
    rateLimit: {
      limiter: deps.limiters[action],
      subject: (holder) => holder.keyId,
      message: (decision, rule) =>
        `This shop key may make ${decision.limit} ${ACTION_NAMES[action]} per ${rule.windowSeconds} seconds; try again in ${decision.retryAfterSeconds} s.`,
    },
  });
}

/** A whole number in a query string (digits only), checked against bounds. */
export function wholeNumberParam(min: number, max: number) {
  return z
    .string()
    .regex(/^\d{1,6}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));
}

/** The `VALIDATION_FAILED` refusal of a party larger than the service takes at once. */
export function partyTooLarge(capacity: number): ShopError {
  return new ShopError("VALIDATION_FAILED", "The request is not valid.", {
    issues: [{ path: "partySize", message: `must be at most ${capacity}, the service's capacity` }],
  });
}

/** The refusal of a service id that is not one of the shop's services. */
export function serviceNotFound(serviceId: string): ShopError {
  return new ShopError("SERVICE_NOT_FOUND", "Your shop has no service with this id.", { service: serviceId });
}
