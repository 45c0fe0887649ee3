import { type createRoute, errorResponseSpec, requestHeader } from "@app/core";
import type { Scope } from "../domain/scopes.ts";
import { PublisherError } from "../errors.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { authenticateApiKey, type KeyHolder } from "../store/accounts.ts";

/** The request header that carries a publisher API key. */
export const API_KEY_HEADER = "x-api-key";

/** Longer than any key issued: such a header is refused without a lookup. */
const MAX_KEY_LENGTH = 200;

/** OpenAPI security requirement of the key-protected routes. */
export const API_KEY_SECURITY = [{ apiKey: [] }];

/** The error responses of every route behind an API key. */
export const API_KEY_RESPONSES = {
  401: errorResponseSpec("Missing, unknown or revoked API key (UNAUTHORIZED)"),
  403: errorResponseSpec("The key lacks the operation's scope (INSUFFICIENT_SCOPE)"),
  429: errorResponseSpec("Too many requests for this key (RATE_LIMITED); see Retry-After"),
} as const;

type RouteMiddleware = NonNullable<Parameters<typeof createRoute>[0]["middleware"]>;
export type Middleware = Exclude<RouteMiddleware, readonly unknown[]>;
type RequestContext = Parameters<Middleware>[0];

const holders = new WeakMap<Request, KeyHolder>();

/**
 * Route middleware, run before the request is validated or its body read: the key must be valid
 * and not revoked (401), the request is counted against the key's limit (429 with `Retry-After`),
 * and the key must hold `scope` (403). The holder is then {@link keyHolderOf} the request.
 */
export function apiKeyGuard(deps: Pick<RouteDeps, "db" | "limiter">, scope: Scope): Middleware {
  return async (c, next) => {
    holders.set(c.req.raw, await authenticateRequest(deps, c, scope));
    await next();
  };
}

/**
 * The checks of {@link apiKeyGuard} as a function, for routes registered elsewhere (the connect
 * flows): the key's holder, or the 401 / 429 / 403 refusal thrown.
 */
export async function authenticateRequest(
  deps: Pick<RouteDeps, "db" | "limiter">,
  c: Pick<RequestContext, "req" | "env">,
  scope: Scope,
): Promise<KeyHolder> {
  const key = requestHeader(c as never, API_KEY_HEADER);
  if (!key) throw new PublisherError("UNAUTHORIZED", `Send your API key in the ${API_KEY_HEADER} header.`);
  const holder = key.length <= MAX_KEY_LENGTH ? await authenticateApiKey(deps.db, key) : undefined;
  if (!holder) throw new PublisherError("UNAUTHORIZED", "This API key is not valid, or it was revoked.");
  const decision = await deps.limiter.take(holder.keyId);
  if (!decision.allowed) {
    throw new PublisherError(
      "RATE_LIMITED",
      `This key may make ${decision.limit} requests per ${decision.windowSeconds} seconds; try again in ${decision.retryAfterSeconds} s.`,
      {
        limit: decision.limit,
        windowSeconds: decision.windowSeconds,
        retryAfterSeconds: decision.retryAfterSeconds,
      },
      { "Retry-After": String(decision.retryAfterSeconds) },
    );
  }
  if (!holder.scopes.includes(scope)) {
    throw new PublisherError("INSUFFICIENT_SCOPE", `This operation needs a key with the scope ${scope}.`, {
      requiredScope: scope,
    });
  }
  return holder;
}

/** The holder of the key that {@link apiKeyGuard} accepted for this request. */
export function keyHolderOf(c: Pick<RequestContext, "req">): KeyHolder {
  const holder = holders.get(c.req.raw);
  if (!holder) throw new Error("The route has no API key guard.");
  return holder;
}
