import type { Queryable } from "@app/db";

/** A response kept for retries under the same `Idempotency-Key`. */
export type StoredResponse = { status: number; body: unknown; headers: Record<string, string> };

export type IdempotencyBegin =
  | { kind: "started" }
  | { kind: "replay"; response: StoredResponse; claimKey: string }
  | { kind: "in_progress"; claimKey: string }
  | { kind: "mismatch" };

/** How long a stored response answers retries. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** A key whose request has not completed: its scope and the authorisation that paid for it. */
export type PendingKey = { route: string; key: string; payer: string; claimKey: string; createdAt: Date };

/**
 * Idempotency keys, scoped by route and payer: the first request with a key runs,
 * a retry with the same key and request gets the stored response (for 24 hours), a
 * retry while the first still runs is told so, and the same key on another request
 * is refused.
 */
export class IdempotencyStore {
  constructor(
    private readonly db: Queryable,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async begin(
    route: string,
    key: string,
    payer: string,
    requestHash: string,
    claimKey: string,
  ): Promise<IdempotencyBegin> {
    const inserted = await this.db.query(
      `INSERT INTO fortune.idempotent_responses (route, idempotency_key, payer, request_hash, claim_key, state)
       VALUES ($1, $2, $3, $4, $5, 'pending') ON CONFLICT DO NOTHING RETURNING 1`,
      [route, key, payer.toLowerCase(), requestHash, claimKey],
    );
    if (inserted.length > 0) return { kind: "started" };
    const [row] = await this.db.query<{
      request_hash: string;
      claim_key: string;
      state: string;
      status: number;
      body: unknown;
      headers: Record<string, string>;
      created_at: Date;
    }>(
      `SELECT request_hash, claim_key, state, status, body, headers, created_at FROM fortune.idempotent_responses
       WHERE route = $1 AND idempotency_key = $2 AND payer = $3`,
      [route, key, payer.toLowerCase()],
    );
    if (!row) return this.begin(route, key, payer, requestHash, claimKey);
    if (row.state === "done" && row.created_at.getTime() < this.now().getTime() - IDEMPOTENCY_TTL_MS) {
      await this.forget(route, key, payer, "done");
      return this.begin(route, key, payer, requestHash, claimKey);
    }
    if (row.request_hash !== requestHash) return { kind: "mismatch" };
    if (row.state !== "done") return { kind: "in_progress", claimKey: row.claim_key };
    return {
      kind: "replay",
      claimKey: row.claim_key,
      response: { status: row.status, body: row.body, headers: row.headers },
    };
  }

  async complete(route: string, key: string, payer: string, response: StoredResponse): Promise<void> {
    await this.db.query(
      `UPDATE fortune.idempotent_responses SET state = 'done', status = $4, body = $5, headers = $6
       WHERE route = $1 AND idempotency_key = $2 AND payer = $3`,
      [
        route,
        key,
        payer.toLowerCase(),
        response.status,
        JSON.stringify(response.body),
        JSON.stringify(response.headers),
      ],
    );
  }

  /** Forgets a key whose request did not complete, so a retry runs again. */
  async release(route: string, key: string, payer: string): Promise<void> {
    await this.forget(route, key, payer, "pending");
  }

  private async forget(route: string, key: string, payer: string, state: "pending" | "done"): Promise<void> {
    await this.db.query(
      `DELETE FROM fortune.idempotent_responses
       WHERE route = $1 AND idempotency_key = $2 AND payer = $3 AND state = $4`,
      [route, key, payer.toLowerCase(), state],
    );
  }

  /** Keys still running since before `before` (left by a crash, or waiting on the chain). */
  async pendingSince(before: Date): Promise<PendingKey[]> {
    return this.db.query<PendingKey>(
      `SELECT route, idempotency_key AS key, payer, claim_key AS "claimKey", created_at AS "createdAt"
       FROM fortune.idempotent_responses WHERE state = 'pending' AND created_at < $1
       ORDER BY created_at LIMIT 100`,
      [before],
    );
  }

  /** Deletes stored responses past their 24 hours; how many went. */
  async purgeExpired(now: Date): Promise<number> {
    const rows = await this.db.query(
      "DELETE FROM fortune.idempotent_responses WHERE state = 'done' AND created_at < $1 RETURNING 1",
      [new Date(now.getTime() - IDEMPOTENCY_TTL_MS)],
    );
    return rows.length;
  }
}
