import { ApiError, requestHeader, setResponseHeader } from "@app/core";
import type { Context, MiddlewareHandler } from "hono";
import { rateLimitedError, rateLimitHeaders } from "../rate-limit/rate-limit-response.ts";
import type { RateDecision, RateLimiter, RateRule } from "../rate-limit/rate-limiter.ts";
import { isPlausibleApiKey } from "./api-key.ts";
import { missingScope } from "./scopes.ts";

/** What {@link apiKeyAuth} puts on the context: the caller its `verify` found (`c.var.caller`). */
export type ApiKeyVariables<C> = { caller: C };

/** The Hono env of a handler behind {@link apiKeyAuth}. */
export type ApiKeyEnv<C> = { Variables: ApiKeyVariables<C> };

/** The middleware {@link apiKeyAuth} makes. */
export type ApiKeyMiddleware<C> = MiddlewareHandler<ApiKeyEnv<C>>;

/**
 * Where a request carries its key: a header holding the key itself (`x-api-key`), or
 * `Authorization: Bearer <key>`, whose 401s carry a `WWW-Authenticate: Bearer realm="…"` challenge.
 */
export type ApiKeySource = { header: string } | { bearer: { realm: string } };

/** The scope a route needs, and how the key's holder shows the scopes it has. */
export type ScopeRequirement<C> = {
  required: string;
  held(caller: C): readonly string[];
  /** The 403 of a key without the scope (default: `FORBIDDEN` with `requiredScope`). */
  refusal?(missing: string): ApiError;
};

/** The limit counted for every request whose key is valid, before its scope is checked. */
export type KeyRateLimit<C> = {
  limiter: RateLimiter;
  /** The limiter of this caller, when callers differ (a key with a rate of its own); undefined: `limiter`. */
  limiterOf?(caller: C): RateLimiter | undefined;
  /** Whose allowance the request counts against (the key's id, usually). */
  subject(caller: C): string;
  /** The 429's message, in the service's words. */
  message(decision: Extract<RateDecision, { allowed: false }>, rule: RateRule): string;
};

/** How {@link apiKeyAuth} finds and checks the caller. */
export type ApiKeyAuthOptions<C> = {
  source: ApiKeySource;
  /** The caller a key speaks for, or undefined for an unknown or revoked key. */
  verify(key: string): Promise<C | undefined> | C | undefined;
  /** The 401 messages: no key sent, and a key that is not valid. */
  messages: { missing: string; invalid: string };
  scope?: ScopeRequirement<C>;
  rateLimit?: KeyRateLimit<C>;
};

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The token of an `Authorization: Bearer <token>` header, if it is one. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization ? BEARER.exec(authorization)?.[1] : undefined;
}

/** The `WWW-Authenticate` challenge of a 401 for a bearer token in `realm`. */
export function bearerChallenge(realm: string): Record<string, string> {
  return { "WWW-Authenticate": `Bearer realm="${realm}"` };
}

function presentedKey(c: Context, source: ApiKeySource): string | undefined {
  if ("header" in source) return requestHeader(c, source.header) || undefined;
  return bearerToken(requestHeader(c, "authorization"));
}

/**
 * Route middleware, run before the request is validated or its body read, in the order of the
 * checks: the key must be sent and valid (401, with the bearer challenge when the key is a bearer
 * token; an overlong key is refused without a lookup), then the request is counted against the
 * rate limit (429 with `Retry-After`; the `RateLimit-*` headers on every answer), then the key
 * must hold the scope (403). The caller is then `c.var.caller`.
 */
export function apiKeyAuth<C>(options: ApiKeyAuthOptions<C>): ApiKeyMiddleware<C> {
  const challenge = "bearer" in options.source ? bearerChallenge(options.source.bearer.realm) : {};
  const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message, {}, challenge);
  return async (c, next) => {
    const key = presentedKey(c, options.source);
    if (key === undefined) throw unauthorized(options.messages.missing);
    const caller = isPlausibleApiKey(key) ? await checking(() => options.verify(key)) : undefined;
    if (caller === undefined) throw unauthorized(options.messages.invalid);
    const { rateLimit } = options;
    if (rateLimit) await checking(() => countRequest(c, rateLimit, caller));
    if (options.scope) checkScope(options.scope, caller);
    c.set("caller", caller);
    await next();
  };
}

/** How long a caller is told to wait when its key cannot be checked. */
const CHECK_RETRY_AFTER_SECONDS = 5;

/**
 * Runs one step of the key's check; a failure under it (its database down, a lock timeout) is a
 * 503 `NOT_READY` with `Retry-After`, the failure logged by the error handler, never a bare 500.
 * The step's own refusals (401, 429) go through as they are.
 */
async function checking<T>(step: () => Promise<T> | T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw Object.assign(
      new ApiError(
        "NOT_READY",
        "The service cannot check API keys right now; try again shortly.",
        {},
        { "Retry-After": String(CHECK_RETRY_AFTER_SECONDS) },
      ),
      { cause: error },
    );
  }
}

async function countRequest<C>(c: Context, rateLimit: KeyRateLimit<C>, caller: C): Promise<void> {
  const limiter = rateLimit.limiterOf?.(caller) ?? rateLimit.limiter;
  const decision = await limiter.take(rateLimit.subject(caller));
  if (!decision.allowed) {
    throw rateLimitedError(decision, rateLimit.message(decision, limiter.rule), {
      windowSeconds: limiter.rule.windowSeconds,
    });
  }
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) setResponseHeader(c, name, value);
}

function checkScope<C>(scope: ScopeRequirement<C>, caller: C): void {
  const missing = missingScope(scope.held(caller), [scope.required]);
  if (missing === undefined) return;
  throw (
    scope.refusal?.(missing) ??
    new ApiError("FORBIDDEN", `This operation needs a key with the scope ${missing}.`, {
      requiredScope: missing,
    })
  );
}
