import {
  createRoute,
  errorResponseSpec,
  jsonResponse,
  jsonTextOf,
  requestHeader,
  requestIdOf,
  type z,
} from "@app/core";
import { idempotencyKeyOf, type StoredResponse, sendStoredResponse, storedJsonText } from "@app/edge";
import type { Context } from "hono";
import type { GatewayDeps } from "../runner/deps.ts";
import { findTool } from "../runner/find-tool.ts";
import { type KeyedRunOptions, runIdempotently } from "../runner/idempotent-run.ts";
import { runRateLimit } from "../runner/run-rate-limit.ts";
import { type RunAnswer, type RunRequest, runTool } from "../runner/run-tool.ts";
import { RunBodySchema, RunEnvelopeSchema } from "./schemas.ts";
import {
  COMMON_RESPONSES,
  GATEWAY_KEY_SECURITY,
  type GatewayApp,
  gatewayKeyGuard,
  invalidInputHook,
} from "./shared.ts";

/** The header that carries the caller's upstream key (preferred to the body's `upstreamKey`). */
export const UPSTREAM_KEY_HEADER = "x-upstream-key";

/**
 * A run's answer as JSON text: the 200 of its envelope as it was built (the upstream's output
 * spliced in, not serialised again), or a stored answer replayed byte for byte; the route's
 * schema documents it.
 */
function sendText(c: Context, response: StoredResponse, replayed = false) {
  return jsonTextOf<z.infer<typeof RunEnvelopeSchema>>(sendStoredResponse(c, response, replayed));
}

/** A fresh run's envelope, as it was built. */
function envelopeResponse(c: Context, answer: RunAnswer): ReturnType<typeof sendText> {
  return sendText(c, storedJsonText(200, answer.json));
}

/**
 * POST /v1/run: runs a registered tool on the caller's behalf and answers the run envelope. Every
 * request with a valid key counts against the key's runs limit, in the key guard, before its body
 * or its `Idempotency-Key` is looked at (replays, 409s and 422s included); the guard puts the
 * `RateLimit-*` headers on every answer, and the run takes no second token.
 */
export function registerRun(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "post",
    path: "/v1/run",
    operationId: "run",
    tags: ["Tools"],
    summary: "Run a tool",
    description:
      "Runs the named tool with `input`. Whenever the upstream answered, the answer is 200 with the run envelope, the upstream's status in `upstream.status` (its 4xx and 5xx included). Send the upstream key in `X-Upstream-Key`; send `Idempotency-Key` to make retries safe.",
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps, runRateLimit(deps.rateLimiter)),
    request: { body: { required: true, content: { "application/json": { schema: RunBodySchema } } } },
    responses: {
      200: jsonResponse(RunEnvelopeSchema, "The upstream answered: the run envelope"),
      ...COMMON_RESPONSES,
      402: errorResponseSpec(
        "A priced tool costs more than the balance (INSUFFICIENT_BALANCE), or the run would take the key past a daily spend cap of its policy (SPEND_CAP_REACHED); nothing charged",
      ),
      409: errorResponseSpec(
        "A run with this Idempotency-Key is still running (REQUEST_IN_PROGRESS); see Retry-After",
      ),
      422: errorResponseSpec(
        "This Idempotency-Key was used with another run request, or another upstream key (IDEMPOTENCY_KEY_REUSED)",
      ),
      429: errorResponseSpec("Too many runs for this gateway key (RATE_LIMITED); see Retry-After"),
      502: errorResponseSpec("UPSTREAM_UNAVAILABLE or UPSTREAM_RESPONSE_TOO_LARGE; nothing charged"),
      504: errorResponseSpec("UPSTREAM_TIMEOUT; nothing charged"),
    },
  });
  app.openapi(
    route,
    async (c) => {
      const { caller } = c.var;
      const { upstreamKey: bodyKey, ...body } = c.req.valid("json");
      const upstreamKey = requestHeader(c, UPSTREAM_KEY_HEADER) ?? bodyKey;
      const request: RunRequest = body;
      c.header("Cache-Control", "no-store");
      const idempotencyKey = idempotencyKeyOf(c);
      const recorded = { idempotencyKey, requestId: requestIdOf(c) };
      const execute = (keyed?: KeyedRunOptions) =>
        runTool(deps, caller, request, upstreamKey, { counted: true, ...recorded, ...keyed });
      if (idempotencyKey === undefined) return envelopeResponse(c, await execute());
      // Idempotency-Keys are the account's: a key's allowlist holds before any stored answer is replayed.
      findTool(deps.registry, request, caller);
      const answer = await runIdempotently(deps, caller, idempotencyKey, request, upstreamKey, execute);
      if (!answer.replayed) return envelopeResponse(c, answer.answer);
      return sendText(c, answer.response, true);
    },
    invalidInputHook,
  );
}
