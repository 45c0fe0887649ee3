import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import { purgeExpiredEntries } from "@app/payments";
import { fortuneIdempotencyStore } from "./idempotency.ts";

/**
 * Deletes what can never be used again: spent SIWX nonces past their expiry, MPP replay
 * markers whose challenge has expired (a credential for it is refused as expired
 * anyway), and responses stored for `Idempotency-Key` retries past their 24 hours (with keys
 * whose lease ran out as long ago; keys pinned while a payment awaits the chain stay).
 * Returns how many rows went.
 */
export async function purgeExpired(
  db: Database,
  now: Date,
): Promise<{ nonces: number; replayMarkers: number; storedResponses: number }> {
  const nonces = await db.query("DELETE FROM fortune.siwx_spent_nonces WHERE expires_at < $1 RETURNING 1", [
    now,
  ]);
  const replayMarkers = await purgeExpiredEntries(db, "fortune.mpp_store", now);
  const storedResponses = await fortuneIdempotencyStore(db, { now: () => now }).purgeExpired(now);
  return { nonces: nonces.length, replayMarkers, storedResponses };
}

/** Runs {@link purgeExpired} now and then every `everyMs`; the returned function stops it. */
export function startHousekeeping(
  db: Database,
  clock: Clock,
  logger: Logger,
  everyMs = 10 * 60_000,
): () => void {
  const run = () =>
    purgeExpired(db, clock.now()).then(
      (purged) => logger.debug(purged, "purged expired nonces and replay markers"),
      (error: unknown) => logger.warn({ err: error }, "housekeeping failed"),
    );
  void run();
  const timer = setInterval(run, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
