import { randomUUID } from "node:crypto";
import type { Queryable } from "@app/db";

/** How long a stored run answers retries with the same `Idempotency-Key`. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** What a pending key's lease adds to the upstream's total deadline (the run's own statements). */
export const PENDING_LEASE_MARGIN_MS = 60_000;

/** The lease of a pending key when none is configured: the default upstream deadline plus the margin. */
export const DEFAULT_PENDING_LEASE_MS = 10_000 + PENDING_LEASE_MARGIN_MS;

/** A stored answer: the status and the JSON text of the body the first request got. */
export type StoredAnswer = { status: number; bodyJson: string };

/** The key as held by the request that began it: `token` proves it still holds the lease. */
export type IdempotencyLease = { accountId: string; key: string; token: string };

export type IdempotencyBegin =
  | { kind: "started"; lease: IdempotencyLease }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "in_progress" }
  | { kind: "mismatch" };

type Row = {
  request_hash: string;
  state: "pending" | "done";
  status: number | null;
  body: string | null;
  created_at: Date;
  lease_until: Date | null;
};

/**
 * `Idempotency-Key`s of runs, per account (Stripe's semantics): the first request with a key runs,
 * a retry with the same key and body gets the stored answer for 24 hours, a retry while the first
 * still runs is told so, and the same key on a different body is refused. Only the fingerprint of
 * the request and the answer (as JSON text) are kept, never the upstream key.
 *
 * A key being run is `pending` under a lease ({@link DEFAULT_PENDING_LEASE_MS}, or the upstream's
 * deadline plus {@link PENDING_LEASE_MARGIN_MS}): a pending key whose lease ran out (its instance
 * crashed mid-run) is taken over by the next request with it, which runs afresh.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date,
    private readonly pendingLeaseMs = DEFAULT_PENDING_LEASE_MS,
  ) {}

  async begin(accountId: string, key: string, requestHash: string): Promise<IdempotencyBegin> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const now = this.now();
      const token = randomUUID();
      const inserted = await this.db.query(
        `INSERT INTO gateway.idempotent_runs
           (account_id, idempotency_key, request_hash, state, created_at, lease_until, lease_token)
         VALUES ($1, $2, $3, 'pending', $4, $5, $6) ON CONFLICT DO NOTHING RETURNING 1`,
        [accountId, key, requestHash, now, new Date(now.getTime() + this.pendingLeaseMs), token],
      );
      if (inserted.length > 0) return { kind: "started", lease: { accountId, key, token } };
      const [row] = await this.db.query<Row>(
        `SELECT request_hash, state, status, body, created_at, lease_until FROM gateway.idempotent_runs
         WHERE account_id = $1 AND idempotency_key = $2`,
        [accountId, key],
      );
      if (!row) continue;
      if (this.expired(row, now)) {
        // A stored answer past its 24 hours, or a pending run past its lease: the key is free again.
        await this.db.query(
          `DELETE FROM gateway.idempotent_runs
           WHERE account_id = $1 AND idempotency_key = $2 AND state = $3 AND created_at = $4`,
          [accountId, key, row.state, row.created_at],
        );
        continue;
      }
      if (row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.state === "pending") return { kind: "in_progress" };
      return { kind: "replay", answer: { status: row.status ?? 200, bodyJson: row.body ?? "null" } };
    }
    return { kind: "in_progress" };
  }

  private expired(row: Row, now: Date): boolean {
    if (row.state === "done") return row.created_at.getTime() <= now.getTime() - IDEMPOTENCY_TTL_MS;
    const leaseUntil = row.lease_until?.getTime() ?? row.created_at.getTime() + this.pendingLeaseMs;
    return leaseUntil <= now.getTime();
  }

  /**
   * Keeps the answer of a request that ran (its body as the JSON text that was answered), if the
   * lease is still this request's. Returns whether it was kept.
   */
  async complete(lease: IdempotencyLease, answer: StoredAnswer): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE gateway.idempotent_runs SET state = 'done', status = $4, body = $5, lease_until = NULL, lease_token = NULL
       WHERE account_id = $1 AND idempotency_key = $2 AND state = 'pending' AND lease_token = $3
       RETURNING 1`,
      [lease.accountId, lease.key, lease.token, answer.status, answer.bodyJson],
    );
    return rows.length > 0;
  }

  /** Forgets a key whose request did not run to an answer worth keeping, so a retry runs again. */
  async release(lease: IdempotencyLease): Promise<void> {
    await this.db.query(
      `DELETE FROM gateway.idempotent_runs
       WHERE account_id = $1 AND idempotency_key = $2 AND state = 'pending' AND lease_token = $3`,
      [lease.accountId, lease.key, lease.token],
    );
  }
}
