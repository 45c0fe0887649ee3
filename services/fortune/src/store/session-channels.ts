import type { Queryable } from "@app/db";

/** Where a channel's settlement stands (see migration 010). */
export type SessionChannelRecord = {
  channelId: string;
  payer: string | null;
  accruedAtomic: number;
  settledAtomic: number;
  settlementTx: string | null;
  unsettledSince: Date | null;
  closeRequestedAt: Date | null;
  closedAt: Date | null;
  claimedBy: string | null;
  failures: number;
  lastError: string | null;
};

const COLUMNS = `channel_id AS "channelId", payer, accrued_atomic AS "accruedAtomic",
  settled_atomic AS "settledAtomic", settlement_tx AS "settlementTx", unsettled_since AS "unsettledSince",
  close_requested_at AS "closeRequestedAt", closed_at AS "closedAt", claimed_by AS "claimedBy", failures,
  last_error AS "lastError"`;

/** Options of {@link SessionChannelStore.claimDue}. */
export type ClaimOptions = {
  /** Who claims (one settler instance). */
  owner: string;
  /** Channels whose billing has been ahead of settlement this long are due (close-requested ones at once). */
  dueAfterMs: number;
  /** How long the claim holds if its owner never releases it (a crash). */
  leaseMs: number;
  limit: number;
};

/**
 * The settlement state of the MPP session channels the service billed (`fortune.session_channels`),
 * shared by every instance. A settler claims due channels with a lease, so two instances never settle
 * one channel at once, and releases them when done; a channel that failed stays due.
 */
export class SessionChannelStore {
  constructor(private readonly db: Queryable) {}

  /**
   * Notes billing up to `cumulativeAtomic` on the channel and returns its settlement so far. Locks the
   * channel's row until the caller's transaction ends, so a settlement being recorded waits for it.
   */
  async accrue(
    channelId: string,
    payer: string | undefined,
    cumulativeAtomic: bigint,
  ): Promise<{ settledAtomic: number; settlementTx: string | null }> {
    const rows = await this.db.query<{ settledAtomic: number; settlementTx: string | null }>(
      `INSERT INTO fortune.session_channels AS c (channel_id, payer, accrued_atomic, unsettled_since)
       VALUES ($1, $2, $3, now())
       ON CONFLICT (channel_id) DO UPDATE SET
         accrued_atomic = GREATEST(c.accrued_atomic, excluded.accrued_atomic),
         unsettled_since = CASE WHEN excluded.accrued_atomic > c.settled_atomic
           THEN COALESCE(c.unsettled_since, now()) ELSE c.unsettled_since END,
         updated_at = now()
       RETURNING settled_atomic AS "settledAtomic", settlement_tx AS "settlementTx"`,
      [channelId, payer?.toLowerCase() ?? null, cumulativeAtomic.toString()],
    );
    return rows[0] as { settledAtomic: number; settlementTx: string | null };
  }

  /** Records a confirmed settlement up to `amountAtomic` (`closed`: the channel's final one). */
  async settled(channelId: string, amountAtomic: bigint, txHash: string, closed: boolean): Promise<void> {
    await this.db.query(
      `INSERT INTO fortune.session_channels AS c (channel_id, settled_atomic, settlement_tx, closed_at)
       VALUES ($1, $2, $3, CASE WHEN $4 THEN now() END)
       ON CONFLICT (channel_id) DO UPDATE SET
         settled_atomic = GREATEST(c.settled_atomic, excluded.settled_atomic),
         settlement_tx = CASE WHEN excluded.settled_atomic >= c.settled_atomic
           THEN excluded.settlement_tx ELSE c.settlement_tx END,
         unsettled_since = CASE WHEN c.accrued_atomic > GREATEST(c.settled_atomic, excluded.settled_atomic)
           THEN now() END,
         closed_at = COALESCE(c.closed_at, excluded.closed_at),
         updated_at = now()`,
      [channelId, amountAtomic.toString(), txHash, closed],
    );
  }

  /** The payer asked the reserve to close the channel: settle it at the next round. */
  async closeRequested(channelId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO fortune.session_channels AS c (channel_id, close_requested_at) VALUES ($1, now())
       ON CONFLICT (channel_id) DO UPDATE SET
         close_requested_at = COALESCE(c.close_requested_at, now()), updated_at = now()`,
      [channelId],
    );
  }

  /**
   * Claims up to `limit` due channels that nobody holds: billed past their settlement for
   * `dueAfterMs`, or close-requested with anything unsettled. Returns the claimed channel ids.
   */
  async claimDue(options: ClaimOptions): Promise<string[]> {
    const due = `closed_at IS NULL AND unsettled_since IS NOT NULL
      AND (close_requested_at IS NOT NULL OR unsettled_since <= now() - $3::float8 * interval '1 millisecond')
      AND (claimed_until IS NULL OR claimed_until < now())`;
    const rows = await this.db.query<{ channelId: string }>(
      `UPDATE fortune.session_channels
       SET claimed_by = $1, claimed_until = now() + $2::float8 * interval '1 millisecond'
       WHERE channel_id IN (
         SELECT channel_id FROM fortune.session_channels WHERE ${due}
         ORDER BY unsettled_since LIMIT $4 FOR UPDATE SKIP LOCKED)
       AND ${due}
       RETURNING channel_id AS "channelId"`,
      [options.owner, options.leaseMs, options.dueAfterMs, options.limit],
    );
    return rows.map((row) => row.channelId);
  }

  /** Gives a claimed channel back; with `failure`, the reason is kept and the channel stays due. */
  async release(channelId: string, owner: string, failure?: string): Promise<void> {
    await this.db.query(
      `UPDATE fortune.session_channels SET claimed_by = NULL, claimed_until = NULL,
         failures = CASE WHEN $3::text IS NULL THEN 0 ELSE failures + 1 END, last_error = $3, updated_at = now()
       WHERE channel_id = $1 AND claimed_by = $2`,
      [channelId, owner, failure?.slice(0, 500) ?? null],
    );
  }

  /** Nothing is left to settle on the channel (closed, or unknown to the MPP server). */
  async finished(channelId: string): Promise<void> {
    await this.db.query(
      `UPDATE fortune.session_channels SET unsettled_since = NULL, updated_at = now() WHERE channel_id = $1`,
      [channelId],
    );
  }

  async get(channelId: string): Promise<SessionChannelRecord | undefined> {
    const rows = await this.db.query<SessionChannelRecord>(
      `SELECT ${COLUMNS} FROM fortune.session_channels WHERE channel_id = $1`,
      [channelId],
    );
    return rows[0];
  }
}
