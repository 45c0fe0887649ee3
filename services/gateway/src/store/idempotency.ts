import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { IdempotencyStore } from "@app/edge";

/** The namespace of the gateway's `Idempotency-Key`s in the shared store. */
export const IDEMPOTENCY_NAMESPACE = "gateway";

/** What a pending key's lease adds to the upstream's total deadline (the run's own statements). */
export const PENDING_LEASE_MARGIN_MS = 60_000;

/** The lease of a pending key when none is configured: the default upstream deadline plus the margin. */
export const DEFAULT_PENDING_LEASE_MS = 10_000 + PENDING_LEASE_MARGIN_MS;

/**
 * The store of the gateway's run keys, per account: a key being run is leased for the upstream's
 * total deadline plus {@link PENDING_LEASE_MARGIN_MS}, after which (its instance crashed mid-run)
 * the next run with the key takes it over.
 */
export function gatewayIdempotencyStore(
  db: Queryable,
  clock: Clock,
  upstreamTimeoutMs: number | undefined,
): IdempotencyStore {
  return new IdempotencyStore(db, {
    namespace: IDEMPOTENCY_NAMESPACE,
    clock,
    leaseMs:
      upstreamTimeoutMs === undefined
        ? DEFAULT_PENDING_LEASE_MS
        : upstreamTimeoutMs + PENDING_LEASE_MARGIN_MS,
  });
}
