import { errorResponseSpec } from "@app/core";
import { type ApiKeyMiddleware, apiKeyAuth } from "@app/edge";
import type { Scope } from "../domain/scopes.ts";
import { PublisherError } from "../errors.ts";
import type { RouteDeps } from "../routes/deps.ts";
import { authenticateApiKey, type KeyHolder, publisherApiKeys } from "../store/accounts.ts";

/** The request header that carries a publisher API key. */
export const API_KEY_HEADER = "x-api-key";

/** OpenAPI security requirement of the key-protected routes. */
export const API_KEY_SECURITY = [{ apiKey: [] }];

/** The error responses of every route behind an API key. */
export const API_KEY_RESPONSES = {
  401: errorResponseSpec("Missing, unknown or revoked API key (UNAUTHORIZED)"),
  403: errorResponseSpec("The key lacks the operation's scope (INSUFFICIENT_SCOPE)"),
  429: errorResponseSpec("Too many requests for this key (RATE_LIMITED); see Retry-After"),
} as const;

/** The key check of a route that needs `scope`: what {@link apiKeyGuard} makes. */
export type KeyGuard = (scope: Scope) => ApiKeyMiddleware<KeyHolder>;

/**
 * Route middleware, run before the request is validated or its body read: the key must be valid
 * and not revoked (401), the request is counted against the key's limit (429 with `Retry-After`;
 * the `RateLimit-*` headers on every answer), and the key must hold `scope` (403
 * `INSUFFICIENT_SCOPE` naming it). The holder is then `c.var.caller`.
 */
export function apiKeyGuard(
  deps: Pick<RouteDeps, "db" | "clock" | "limiter">,
  scope: Scope,
): ApiKeyMiddleware<KeyHolder> {
  const keys = publisherApiKeys(deps.db, deps.clock);
  return apiKeyAuth({
    source: { header: API_KEY_HEADER },
    verify: (key) => authenticateApiKey(keys, key),
    messages: {
      missing: `Send your API key in the ${API_KEY_HEADER} header.`,
      invalid: "This API key is not valid, or it was revoked.",
    },
    rateLimit: {
      limiter: deps.limiter,
      subject: (holder) => holder.keyId,
      message: (decision, rule) =>
        `This key may make ${decision.limit} requests per ${rule.windowSeconds} seconds; try again in ${decision.retryAfterSeconds} s.`,
    },
    scope: {
      required: scope,
      held: (holder) => holder.scopes,
      refusal: (missing) =>
        new PublisherError("INSUFFICIENT_SCOPE", `This operation needs a key with the scope ${missing}.`, {
          requiredScope: missing,
        }),
    },
  });
}
