import type { Clock, Logger } from "@app/core";
import type { Queryable } from "@app/db";
import {
  type IdempotencyLease,
  IdempotencyStore,
  idempotencyKeyReused,
  keepAnswer,
  releaseKey,
  requestFingerprint,
  requestInProgress,
  type StoredResponse,
} from "@app/edge";
import type { CreditAmount } from "./credit-amount.ts";

/**
 * The namespace of credit purchases' `Idempotency-Key`s in the shared store: apart from the runs'
 * (`gateway`), whose sweeper settles pinned keys by their run.
 */
export const CREDIT_KEYS_NAMESPACE = "gateway-credits";

/**
 * How long a keyed purchase holds its key before anything is sent: past it (its instance died
 * before paying) the next request with the key takes it over. Just before its payment is sent the
 * purchase pins the key, which then waits for the chain (the credit reconciler completes or frees it).
 */
export const CREDIT_KEY_LEASE_MS = 10 * 60_000;

/** The shared store's credit keys: per account, each kept with the settlement reference paying for it. */
export function creditKeysStore(db: Queryable, clock: Clock): IdempotencyStore {
  return new IdempotencyStore(db, { namespace: CREDIT_KEYS_NAMESPACE, leaseMs: CREDIT_KEY_LEASE_MS, clock });
}

/** What a purchase's `Idempotency-Key` says about it. */
export type CreditKey =
  | { kind: "none" }
  | { kind: "run"; lease: IdempotencyLease }
  /** The key's purchase completed: its stored answer, and the payment (settlement reference) that bought it. */
  | { kind: "replay"; stored: StoredResponse; reference: string | undefined };

/**
 * A purchase's key, begun: scoped by the account, bound to the amount asked for, the payment's
 * settlement reference attached. 422 for a key reused with another amount, 409 while the key's
 * purchase has not answered (still running, or its payment awaits the chain).
 */
export async function beginCreditKey(
  store: IdempotencyStore,
  accountId: string,
  key: string | undefined,
  amount: CreditAmount,
  reference: string,
): Promise<CreditKey> {
  if (key === undefined) return { kind: "none" };
  const begun = await store.begin({
    scope: accountId,
    key,
    fingerprint: requestFingerprint({ amount: amount.usd }),
    attachment: reference,
  });
  if (begun.kind === "mismatch") throw idempotencyKeyReused();
  if (begun.kind === "in_progress") throw requestInProgress();
  if (begun.kind === "replay") return { kind: "replay", stored: begun.response, reference: begun.attachment };
  return { kind: "run", lease: begun.lease };
}

/** What a purchase does with its key when it ends. */
export class CreditKeyEnd {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly logger: Logger,
  ) {}

  /** Nothing was taken: a retry with the key runs afresh. */
  async release(key: CreditKey): Promise<void> {
    if (key.kind === "run") await releaseKey(this.store, key.lease, this.logger);
  }

  /** Keeps the answer for the key's retries. */
  async keep(key: CreditKey, response: StoredResponse): Promise<void> {
    if (key.kind === "run") await keepAnswer(this.store, key.lease, response, this.logger);
  }

  /** Holds the key whatever the time, before the payment is sent; false when it is no longer this purchase's. */
  async pin(key: CreditKey): Promise<boolean> {
    return key.kind !== "run" || (await this.store.pin(key.lease));
  }
}
