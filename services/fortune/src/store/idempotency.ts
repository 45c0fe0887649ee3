import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { IdempotencyStore } from "@app/edge";

/** The namespace of fortune's `Idempotency-Key`s in the shared store. */
export const IDEMPOTENCY_NAMESPACE = "fortune";

/**
 * How long a keyed paid request holds its key before anything can be charged: past it (its
 * instance died before paying) the next request with the key takes it over. Before a payment is
 * sent to the chain the request pins its key, which then waits for the chain (the reconciler
 * completes or frees it), however long that takes.
 */
export const KEY_LEASE_MS = 10 * 60_000;

/**
 * Fortune's keys in the shared store: scoped by route and payer ({@link keyScope}), each kept
 * with the payment authorisation that pays for its request (the store's `attachment`).
 */
export function fortuneIdempotencyStore(db: Queryable, clock: Clock): IdempotencyStore {
  return new IdempotencyStore(db, { namespace: IDEMPOTENCY_NAMESPACE, leaseMs: KEY_LEASE_MS, clock });
}

/** Whose key it is: the route, and the payer proven by a signature (never a claimed address). */
export function keyScope(route: string, payer: string): string {
  return `${route}:${payer.toLowerCase()}`;
}
