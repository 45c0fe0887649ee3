import type { ServiceApp } from "@app/core";
import { type createRoute, errorResponseSpec, requestHeader, z } from "@app/core";
import type { LimitedAction } from "../domain/rate-limit.ts";
import { ShopError } from "../errors.ts";
import type { Scheduler } from "../scheduler.ts";
import type { KeyHolder, ShopKeys } from "../store/keys.ts";
import type { RateLimiter } from "../store/rate-limits.ts";

/** What the shop routes are built from. */
export type RouteDeps = { scheduler: Scheduler; keys: ShopKeys; limiter: RateLimiter };

export type ShopApp = ServiceApp;

/** The request header that carries a shop API key. */
export const SHOP_KEY_HEADER = "x-shop-key";

/** Longer than any key we issue: such a header is refused without a lookup. */
const MAX_KEY_LENGTH = 200;

export const SHOP_KEY_SECURITY = [{ shopKey: [] }];

/** The error responses every route behind a shop key can give. */
export const SHOP_KEY_RESPONSES = {
  401: errorResponseSpec("Missing, unknown or revoked shop key (UNAUTHORIZED)"),
  429: errorResponseSpec("Too many requests for this shop key (RATE_LIMITED); see Retry-After"),
} as const;

type RouteMiddleware = NonNullable<Parameters<typeof createRoute>[0]["middleware"]>;
type Middleware = Exclude<RouteMiddleware, readonly unknown[]>;
type RequestContext = Parameters<Middleware>[0];

const ACTION_NAMES: Record<LimitedAction, string> = {
  read: "availability reads",
  booking: "booking requests",
};

const holders = new WeakMap<Request, KeyHolder>();

/**
 * Route middleware, run before the request is validated: the shop key must be valid and not
 * revoked (401), then the request is counted against the key's limit for `action` (429 with
 * `Retry-After`). The key's holder is then available to the handler through {@link keyHolderOf}.
 */
export function shopKeyGuard(deps: RouteDeps, action: LimitedAction): Middleware {
  return async (c, next) => {
    const key = requestHeader(c, SHOP_KEY_HEADER);
    if (!key) throw new ShopError("UNAUTHORIZED", `Send your shop key in the ${SHOP_KEY_HEADER} header.`);
    const holder = key.length <= MAX_KEY_LENGTH ? await deps.keys.authenticate(key) : undefined;
    if (!holder) throw new ShopError("UNAUTHORIZED", "This shop key is not valid, or it was revoked.");
    const decision = await deps.limiter.take(holder.keyId, action);
    if (!decision.allowed) {
      throw new ShopError(
        "RATE_LIMITED",
        `This shop key may make ${decision.limit} ${ACTION_NAMES[action]} per ${decision.windowSeconds} seconds; try again in ${decision.retryAfterSeconds} s.`,
        {
          limit: decision.limit,
          windowSeconds: decision.windowSeconds,
          retryAfterSeconds: decision.retryAfterSeconds,
        },
        { "Retry-After": String(decision.retryAfterSeconds) },
      );
    }
    holders.set(c.req.raw, holder);
    await next();
  };
}

/** The holder of the shop key that {@link shopKeyGuard} accepted for this request. */
export function keyHolderOf(c: Pick<RequestContext, "req">): KeyHolder {
  const holder = holders.get(c.req.raw);
  if (!holder) throw new Error("The route has no shop key guard.");
  return holder;
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
