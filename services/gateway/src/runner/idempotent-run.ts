import { newId } from "@app/core";
import {
  idempotencyKeyReused,
  keepAnswer,
  requestInProgress,
  type StoredResponse,
  storedJson,
  storedJsonText,
} from "@app/edge";
import { runFingerprint } from "../domain/fingerprint.ts";
import type { Caller } from "../store/accounts.ts";
import type { GatewayDeps } from "./deps.ts";
import type { RunAnswer, RunOptions, RunRequest } from "./run-tool.ts";

/** The answer of a run under an `Idempotency-Key`: fresh, or the stored one replayed byte for byte. */
export type IdempotentAnswer =
  | { replayed: false; answer: RunAnswer }
  | { replayed: true; response: StoredResponse };

/**
 * What an idempotent run hands the run it executes: the run's id (the key's attachment names it),
 * its progress, and the pin of its key before the charge.
 */
export type KeyedRunOptions = Required<Pick<RunOptions, "runId" | "progress" | "beforeCharge">>;

/**
 * What a run that failed after its charge answers, and what its retries replay (status 500); also
 * what the run sweeper keeps for a pinned key whose run cannot answer any more.
 */
export function failedAfterCharge(): StoredResponse {
  return storedJson(500, { error: "INTERNAL", message: "Something went wrong on our side." });
}

/**
 * The upstream key a run of `request` would send: `upstreamKey` ("" as none) for a tool that takes
 * one, undefined for a tool that takes none (or no tool), whose answer no upstream key guards.
 */
function sentUpstreamKey(deps: GatewayDeps, request: RunRequest, upstreamKey: string | undefined) {
  const tool = deps.registry.find(request.provider, request.endpoint, request.method);
  if (!tool || tool.provider.upstreamKeyHeader === null) return undefined;
  return upstreamKey ?? "";
}

/**
 * Runs `execute` at most once per account and `Idempotency-Key` (already parsed). The same key with
 * the same request, the same upstream key included, replays the stored answer (not re-run, not
 * re-charged); with another request, or another upstream key or none for a tool that sends one,
 * it is a 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running, a 409
 * `REQUEST_IN_PROGRESS`.
 *
 * A failure before any charge (the gateway's own 400, 402, 404, 429, or a 502/504 whose price was
 * refunded) releases the key, so a retry runs again. A failure after a priced run's charge keeps
 * the key: the 500 is stored and replayed, and the retry is neither run nor charged (the run
 * itself was refunded by `runTool`). When the answer cannot be stored, the key is released rather
 * than left pending, and the run's answer still goes out.
 *
 * A priced run pins its key just before its charge (`IdempotencyStore.pin`): from then on no retry
 * takes the key over, however long the run stalls, so no retry runs or charges again; if the key
 * is no longer this request's by then (its lease ran out and a retry took it), nothing is charged
 * and the answer is 409 `REQUEST_IN_PROGRESS`. The key's attachment is the run's id: the run
 * sweeper settles a pinned key whose request is gone from its run's outcome
 * (`store/run-sweeper.ts`).
 */
export async function runIdempotently(
  deps: GatewayDeps,
  caller: Caller,
  idempotencyKey: string,
  request: RunRequest,
  upstreamKey: string | undefined,
  execute: (run: KeyedRunOptions) => Promise<RunAnswer>,
): Promise<IdempotentAnswer> {
  const runId = newId("run");
  const begin = await deps.idempotency.begin({
    scope: caller.accountId,
    key: idempotencyKey,
    fingerprint: runFingerprint(request, sentUpstreamKey(deps, request, upstreamKey)),
    attachment: runId,
  });
  if (begin.kind === "mismatch") throw idempotencyKeyReused();
  if (begin.kind === "in_progress") throw requestInProgress();
  if (begin.kind === "replay") return { response: begin.response, replayed: true };
  const lease = begin.lease;
  const progress = { charged: false };
  const pinKey = async () => {
    if (!(await deps.idempotency.pin(lease))) throw requestInProgress();
  };
  let answer: RunAnswer;
  try {
    answer = await execute({ runId, progress, beforeCharge: pinKey });
  } catch (error) {
    if (!progress.charged) {
      await deps.idempotency.release(lease);
      throw error;
    }
    await keepAnswer(deps.idempotency, lease, failedAfterCharge(), deps.logger);
    throw error;
  }
  await keepAnswer(deps.idempotency, lease, storedJsonText(200, answer.json), deps.logger);
  return { answer, replayed: false };
}
