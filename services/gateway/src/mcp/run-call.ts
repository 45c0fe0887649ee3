import type { GatewayDeps } from "../runner/deps.ts";
import { findTool } from "../runner/find-tool.ts";
import { runIdempotently } from "../runner/idempotent-run.ts";
import { takeRunToken } from "../runner/run-rate-limit.ts";
import { type RunRequest, runTool } from "../runner/run-tool.ts";
import type { McpCallContext } from "./server.ts";

/** The `run` tool's arguments once validated: `idempotencyKey` is the key itself (a quoted form unwrapped). */
export type RunCallArgs = RunRequest & { upstreamKey?: string; idempotencyKey?: string };

/** What a `run` call answers: a JSON object's text (a fresh envelope, or a stored answer replayed) and whether it is an error. */
export type RunCallAnswer = { json: string; isError: boolean };

/**
 * MCP's `run`: the run `/v1/run` does, its upstream key the request's `X-Upstream-Key` header or
 * else the `upstreamKey` argument. Without an `idempotencyKey` the run takes its rate-limit token
 * once its tool and input are found valid. With one, it is `/v1/run` with that `Idempotency-Key`:
 * the token is taken first, before the key is looked at (replays, 409s and 422s count, as the
 * route's key guard counts them), the key's allowlist is checked before any stored answer is
 * replayed, and the run goes through the same store under the same fingerprint
 * (`runIdempotently`), so either can replay what the other stored. A stored answer is replayed as
 * the text it was: the envelope's, or a 500's error body as an error. A refusal (422
 * `IDEMPOTENCY_KEY_REUSED`, 409 `REQUEST_IN_PROGRESS`, any gateway error) is thrown, for the
 * caller's `isError` result.
 */
export async function runCall(
  deps: GatewayDeps,
  context: McpCallContext,
  args: RunCallArgs,
): Promise<RunCallAnswer> {
  const { upstreamKey: argumentKey, idempotencyKey, ...request } = args;
  const { caller, requestId } = context;
  const upstreamKey = context.headerUpstreamKey ?? argumentKey;
  if (idempotencyKey === undefined) {
    const ran = await runTool(deps, caller, request, upstreamKey, { requestId });
    return { json: ran.json, isError: false };
  }
  await takeRunToken(deps.rateLimiter, caller);
  findTool(deps.registry, request, caller);
  const answer = await runIdempotently(deps, caller, idempotencyKey, request, upstreamKey, (keyed) =>
    runTool(deps, caller, request, upstreamKey, { counted: true, idempotencyKey, requestId, ...keyed }),
  );
  if (!answer.replayed) return { json: answer.answer.json, isError: false };
  return { json: answer.response.body, isError: answer.response.status >= 400 };
}
