import {
  type createRoute,
  errorResponseSpec,
  requestHeader,
  type ServiceApp,
  toValidationIssues,
  type z,
} from "@app/core";
import type { Context } from "hono";
import { GatewayError } from "../errors.ts";
import { authenticate } from "../runner/authenticate.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import type { Caller } from "../store/accounts.ts";

export type GatewayApp = ServiceApp;

export const GATEWAY_KEY_SECURITY = [{ gatewayKey: [] }];

type RouteMiddleware = NonNullable<Parameters<typeof createRoute>[0]["middleware"]>;
type Middleware = Exclude<RouteMiddleware, readonly unknown[]>;

const callers = new WeakMap<Request, Caller>();

/**
 * Route middleware, run before the body is validated, so a request without a valid gateway key
 * is a 401 whatever it carries. The caller is then available through {@link callerOf}.
 */
export function gatewayKeyGuard(deps: GatewayDeps): Middleware {
  return async (c, next) => {
    callers.set(c.req.raw, await authenticate(deps.keys, requestHeader(c, "authorization")));
    await next();
  };
}

/** The caller that {@link gatewayKeyGuard} accepted for this request. */
export function callerOf(c: Context): Caller {
  const caller = callers.get(c.req.raw);
  if (!caller) throw new Error("The route has no gateway key guard.");
  return caller;
}

type HookResult = { success: true } | { success: false; error: z.ZodError };

/** The per-route validation hook: a body or query that does not parse is a 400 `INVALID_INPUT`. */
export function invalidInputHook(result: HookResult): undefined {
  if (result.success) return undefined;
  throw new GatewayError("INVALID_INPUT", "The request does not name a tool correctly.", {
    issues: toValidationIssues(result.error),
  });
}

/** The error responses every gateway operation can give. */
export const COMMON_RESPONSES = {
  400: errorResponseSpec("INVALID_INPUT (with `issues`), UPSTREAM_KEY_REQUIRED, or MALFORMED_JSON"),
  401: errorResponseSpec("Missing, unknown or revoked gateway key (UNAUTHORIZED)"),
  404: errorResponseSpec("No such tool (TOOL_NOT_FOUND), with the tools the caller could have meant"),
} as const;
