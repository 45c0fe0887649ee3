import type { Queryable } from "@app/db";

/** How long a stored run answers retries with the same `Idempotency-Key`. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** A stored answer: the status and the body the first request got. */
export type StoredAnswer = { status: number; body: unknown };

export type IdempotencyBegin =
  | { kind: "started" }
  | { kind: "replay"; answer: StoredAnswer }
  | { kind: "in_progress" }
  | { kind: "mismatch" };

type Row = {
  request_hash: string;
  state: "pending" | "done";
  status: number | null;
  body: unknown;
  created_at: Date;
};

/**
 * `Idempotency-Key`s of runs, per account (Stripe's semantics): the first request with a key runs,
 * a retry with the same key and body gets the stored answer for 24 hours, a retry while the first
 * still runs is told so, and the same key on a different body is refused. Only the fingerprint of
 * the request and the answer are kept, never the upstream key.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date,
  ) {}

  async begin(accountId: string, key: string, requestHash: string): Promise<IdempotencyBegin> {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const inserted = await this.db.query(
        `INSERT INTO gateway.idempotent_runs (account_id, idempotency_key, request_hash, state, created_at)
         VALUES ($1, $2, $3, 'pending', $4) ON CONFLICT DO NOTHING RETURNING 1`,
        [accountId, key, requestHash, this.now()],
      );
      if (inserted.length > 0) return { kind: "started" };
      const [row] = await this.db.query<Row>(
        `SELECT request_hash, state, status, body, created_at FROM gateway.idempotent_runs
         WHERE account_id = $1 AND idempotency_key = $2`,
        [accountId, key],
      );
      if (!row) continue;
      if (row.state === "done" && row.created_at.getTime() <= this.now().getTime() - IDEMPOTENCY_TTL_MS) {
        await this.db.query(
          `DELETE FROM gateway.idempotent_runs
           WHERE account_id = $1 AND idempotency_key = $2 AND state = 'done' AND created_at = $3`,
          [accountId, key, row.created_at],
        );
        continue;
      }
      if (row.request_hash !== requestHash) return { kind: "mismatch" };
      if (row.state === "pending") return { kind: "in_progress" };
      return { kind: "replay", answer: { status: row.status ?? 200, body: row.body } };
    }
    return { kind: "in_progress" };
  }

  /** Keeps the answer of a request that ran (its body as the JSON text that was answered). */
  async complete(
    accountId: string,
    key: string,
    answer: { status: number; bodyJson: string },
  ): Promise<void> {
    await this.db.query(
      `UPDATE gateway.idempotent_runs SET state = 'done', status = $3, body = $4::jsonb
       WHERE account_id = $1 AND idempotency_key = $2 AND state = 'pending'`,
      [accountId, key, answer.status, answer.bodyJson],
    );
  }

  /** Forgets a key whose request did not run to an answer worth keeping, so a retry runs again. */
  async release(accountId: string, key: string): Promise<void> {
    await this.db.query(
      `DELETE FROM gateway.idempotent_runs WHERE account_id = $1 AND idempotency_key = $2 AND state = 'pending'`,
      [accountId, key],
    );
  }
}
