import type { Logger } from "@app/core";
import type { IdempotencyLease, IdempotencyStore } from "./idempotency-store.ts";
import type { StoredResponse } from "./stored-response.ts";

type KeyLog = Pick<Logger, "warn" | "error">;

/**
 * Forgets a key whose request did nothing worth replaying, so a retry runs afresh. Never throws:
 * the request's own answer goes out whatever happens here; a failure is logged, and the key is
 * freed when its lease runs out.
 */
export async function releaseKey(
  store: Pick<IdempotencyStore, "complete" | "release">,
  lease: IdempotencyLease,
  logger: KeyLog,
): Promise<void> {
  try {
    await store.release(lease);
  } catch (error) {
    logger.error(
      { err: error, scope: lease.scope },
      "an Idempotency-Key could not be released; it is freed when its lease runs out",
    );
  }
}

/**
 * Stores the answer of a request run under `lease`, for its retries to replay. Never throws: if
 * the answer cannot be stored, the key is released (a retry runs afresh rather than waiting on a
 * key that would stay pending); if the lease ran out first, the answer is not kept. Both logged.
 */
export async function keepAnswer(
  store: Pick<IdempotencyStore, "complete" | "release">,
  lease: IdempotencyLease,
  response: StoredResponse,
  logger: KeyLog,
): Promise<void> {
  try {
    if (await store.complete(lease, response)) return;
    logger.warn(
      { scope: lease.scope, status: response.status },
      "an Idempotency-Key's lease ran out before its answer was stored; the answer was not kept",
    );
    return;
  } catch (error) {
    logger.error(
      { err: error, scope: lease.scope, status: response.status },
      "the answer of an Idempotency-Key request could not be stored; the key is released",
    );
  }
  await releaseKey(store, lease, logger);
}
