import {
  type IdempotencyLease,
  idempotencyKeyReused,
  requestInProgress,
  type StoredResponse,
  storedJson,
  storedJsonText,
} from "@app/edge";
import { runFingerprint } from "../domain/fingerprint.ts";
import type { Caller } from "../store/accounts.ts";
import type { GatewayDeps } from "./deps.ts";
import type { RunAnswer, RunProgress, RunRequest } from "./run-tool.ts";

/** The answer of a run under an `Idempotency-Key`: fresh, or the stored one replayed byte for byte. */
export type IdempotentAnswer =
  | { replayed: false; answer: RunAnswer }
  | { replayed: true; response: StoredResponse };

/** What a run that failed after its charge answers, and what its retries replay (status 500). */
const FAILED_AFTER_CHARGE = {
  error: "INTERNAL",
  message: "Something went wrong on our side.",
} as const;

/**
 * Runs `execute` at most once per account and `Idempotency-Key` (already parsed). The same key with
 * the same request replays the stored answer (not re-run, not re-charged); with another request it
 * is a 422 `IDEMPOTENCY_KEY_REUSED`; while the first is still running, a 409 `REQUEST_IN_PROGRESS`.
 *
 * A failure before any charge (the gateway's own 400, 402, 404, 429, or a 502/504 whose price was
 * refunded) releases the key, so a retry runs again. A failure after a priced run's charge keeps
 * the key: the 500 is stored and replayed, and the retry is neither run nor charged (the run
 * itself was refunded by `runTool`). When the answer cannot be stored, the key is released rather
 * than left pending, and the run's answer still goes out.
 */
export async function runIdempotently(
  deps: GatewayDeps,
  caller: Caller,
  idempotencyKey: string,
  request: RunRequest,
  execute: (progress: RunProgress) => Promise<RunAnswer>,
): Promise<IdempotentAnswer> {
  const begin = await deps.idempotency.begin({
    scope: caller.accountId,
    key: idempotencyKey,
    fingerprint: runFingerprint(request),
  });
  if (begin.kind === "mismatch") throw idempotencyKeyReused();
  if (begin.kind === "in_progress") throw requestInProgress();
  if (begin.kind === "replay") return { response: begin.response, replayed: true };
  const lease = begin.lease;
  const progress: RunProgress = { charged: false };
  let answer: RunAnswer;
  try {
    answer = await execute(progress);
  } catch (error) {
    if (!progress.charged) {
      await deps.idempotency.release(lease);
      throw error;
    }
    await keep(deps, lease, storedJson(500, FAILED_AFTER_CHARGE));
    throw error;
  }
  await keep(deps, lease, storedJsonText(200, answer.json));
  return { answer, replayed: false };
}

/** Stores the answer under the lease; if that fails, releases the key (both logged, never thrown). */
async function keep(deps: GatewayDeps, lease: IdempotencyLease, response: StoredResponse): Promise<void> {
  try {
    await deps.idempotency.complete(lease, response);
    return;
  } catch (error) {
    deps.logger.error(
      { err: error, accountId: lease.scope, status: response.status },
      "the answer of an Idempotency-Key run could not be stored; the key is released",
    );
  }
  try {
    await deps.idempotency.release(lease);
  } catch (error) {
    deps.logger.error(
      { err: error, accountId: lease.scope },
      "an Idempotency-Key could not be released; it is freed when its lease runs out",
    );
  }
}
