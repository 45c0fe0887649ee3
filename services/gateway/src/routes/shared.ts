import { errorResponseSpec, hostileJsonIssue, type ServiceApp, toValidationIssues, type z } from "@app/core";
import { type ApiKeyMiddleware, apiKeyAuth, type KeyRateLimit } from "@app/edge";
import { GatewayError } from "../errors.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import type { Caller } from "../store/accounts.ts";

export type GatewayApp = ServiceApp;

export const GATEWAY_KEY_SECURITY = [{ gatewayKey: [] }];

/**
 * Route middleware, run before the body is validated, so a request without a valid gateway key
 * (`Authorization: Bearer <key>`, checked through the key cache) is a 401 with the `Bearer`
 * challenge whatever it carries. The caller is then `c.var.caller`. With `rateLimit` (`POST
 * /v1/run`'s `runRateLimit`), every request with a valid key is counted then (429); MCP's `run`
 * takes its token in the runner instead.
 */
export function gatewayKeyGuard(
  deps: Pick<GatewayDeps, "keys">,
  rateLimit?: KeyRateLimit<Caller>,
): ApiKeyMiddleware<Caller> {
  return apiKeyAuth({
    rateLimit,
    source: { bearer: { realm: "gateway" } },
    verify: (key) => deps.keys.authenticate(key),
    messages: {
      missing: "Send your gateway key as `Authorization: Bearer <key>`.",
      invalid: "This gateway key is not valid, or it was revoked.",
    },
  });
}

type HookResult = { success: true } | { success: false; error: z.ZodError };

/**
 * The per-route validation hook: a body or query that does not parse is a 400 `INVALID_INPUT`;
 * so is a body holding what no service should be handed (core's {@link hostileJsonIssue}: a NUL
 * or an unpaired surrogate, nesting past `MAX_JSON_DEPTH`), before any route code sees it.
 */
export function invalidInputHook(result: HookResult): undefined {
  if (!result.success) {
    throw new GatewayError("INVALID_INPUT", "The request does not name a tool correctly.", {
      issues: toValidationIssues(result.error),
    });
  }
  // The validator hands the hook the parsed value and its target too.
  const { data, target } = result as { data?: unknown; target?: string };
  const issue = target === "json" ? hostileJsonIssue(data) : undefined;
  if (issue) {
    throw new GatewayError("INVALID_INPUT", "The request body cannot be taken as it is.", {
      issues: [issue],
    });
  }
  return undefined;
}

/** The error responses every gateway operation can give. */
export const COMMON_RESPONSES = {
  400: errorResponseSpec("INVALID_INPUT (with `issues`), UPSTREAM_KEY_REQUIRED, or MALFORMED_JSON"),
  401: errorResponseSpec("Missing, unknown or revoked gateway key (UNAUTHORIZED)"),
  404: errorResponseSpec("No such tool (TOOL_NOT_FOUND), with the tools the caller could have meant"),
} as const;
