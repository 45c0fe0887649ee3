import { ApiError } from "@app/core";
import { runFingerprint } from "../domain/fingerprint.ts";
import { GatewayError } from "../errors.ts";
import type { Caller } from "../store/accounts.ts";
import type { IdempotencyLease, StoredAnswer } from "../store/idempotency.ts";
import type { GatewayDeps } from "./deps.ts";
import type { RunAnswer, RunProgress, RunRequest } from "./run-tool.ts";

/** The answer of a run under an `Idempotency-Key`: fresh (with its JSON text), or the stored one replayed. */
export type IdempotentAnswer =
  | { replayed: false; answer: RunAnswer }
  | { replayed: true; answer: StoredAnswer };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** What a run that failed after its charge answers, and what its retries replay (status 500). */
const FAILED_AFTER_CHARGE = {
  error: "INTERNAL",
  message: "Something went wrong on our side.",
} as const;

/**
 * Runs `execute` at most once per account and `Idempotency-Key`. The same key with the same
 * request replays the stored answer (not re-run, not re-charged); with another request it is a
 * 409 `IDEMPOTENCY_KEY_REUSED`; while the first is still running, a 409 `REQUEST_IN_PROGRESS`.
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
  if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
    throw new GatewayError("INVALID_INPUT", "The Idempotency-Key header is not valid.", {
      issues: [{ path: "Idempotency-Key", message: "must be 1 to 255 visible ASCII characters" }],
    });
  }
  const begin = await deps.idempotency.begin(caller.accountId, idempotencyKey, runFingerprint(request));
  if (begin.kind === "mismatch") {
    throw new ApiError(
      "IDEMPOTENCY_KEY_REUSED",
      "This Idempotency-Key was used with a different run request; use a new key for a new request.",
    );
  }
  if (begin.kind === "in_progress") {
    throw new ApiError(
      "REQUEST_IN_PROGRESS",
      "A run with this Idempotency-Key is still running; retry shortly.",
      {},
      {
        "Retry-After": "1",
      },
    );
  }
  if (begin.kind === "replay") return { answer: begin.answer, replayed: true };
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
    await keep(deps, lease, { status: 500, bodyJson: JSON.stringify(FAILED_AFTER_CHARGE) });
    throw error;
  }
  await keep(deps, lease, { status: 200, bodyJson: answer.json });
  return { answer, replayed: false };
}

/** Stores the answer under the lease; if that fails, releases the key (both logged, never thrown). */
async function keep(deps: GatewayDeps, lease: IdempotencyLease, answer: StoredAnswer): Promise<void> {
  try {
    await deps.idempotency.complete(lease, answer);
    return;
  } catch (error) {
    deps.logger.error(
      { err: error, accountId: lease.accountId, status: answer.status },
      "the answer of an Idempotency-Key run could not be stored; the key is released",
    );
  }
  try {
    await deps.idempotency.release(lease);
  } catch (error) {
    deps.logger.error(
      { err: error, accountId: lease.accountId },
      "an Idempotency-Key could not be released; it is freed when its lease runs out",
    );
  }
}
