import { ApiError } from "@app/core";
import { runFingerprint } from "../domain/fingerprint.ts";
import { GatewayError } from "../errors.ts";
import type { Caller } from "../store/accounts.ts";
import type { GatewayDeps } from "./deps.ts";
import type { RunAnswer, RunEnvelope, RunRequest } from "./run-tool.ts";

/** The answer of a run under an `Idempotency-Key`: fresh (with its JSON text), or the stored one replayed. */
export type IdempotentAnswer =
  | { replayed: false; answer: RunAnswer }
  | { replayed: true; envelope: RunEnvelope };

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * Runs `execute` at most once per account and `Idempotency-Key`. The same key with the same
 * request replays the stored envelope (not re-run, not re-charged); with another request it is a
 * 409 `IDEMPOTENCY_KEY_REUSED`; while the first is still running, a 409 `REQUEST_IN_PROGRESS`.
 * Only envelopes are kept: a gateway failure (400, 402, 429, 502, 504) releases the key, since
 * nothing ran or was charged, so a retry runs again.
 */
export async function runIdempotently(
  deps: GatewayDeps,
  caller: Caller,
  idempotencyKey: string,
  request: RunRequest,
  execute: () => Promise<RunAnswer>,
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
  if (begin.kind === "replay") return { envelope: begin.answer.body as RunEnvelope, replayed: true };
  let answer: RunAnswer;
  try {
    answer = await execute();
  } catch (error) {
    await deps.idempotency.release(caller.accountId, idempotencyKey);
    throw error;
  }
  await deps.idempotency.complete(caller.accountId, idempotencyKey, { status: 200, bodyJson: answer.json });
  return { answer, replayed: false };
}
