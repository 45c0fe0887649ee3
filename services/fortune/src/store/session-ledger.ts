import { newId } from "@app/core";
import type { Queryable } from "@app/db";

/** One billed use of an MPP session: a request (llm) or the tokens a stream sent. */
export type SessionCharge = {
  route: string;
  payer?: string;
  channelId: string;
  amountAtomic: bigint;
  /** The channel's cumulative spend once this charge was taken: a settlement reaching it covers it. */
  channelCumulativeAtomic: bigint;
  /** The settlement that already covers it, if one confirmed before it was recorded. */
  settledBy?: string;
};

/**
 * Session payments in the ledger (`fortune.payments`, rail `mpp`, scheme `session`): written
 * `accrued` with the channel as reference (and no settled amount), and `settled` with the
 * settlement's transaction once a settlement of the channel reaching their cumulative amount confirms.
 */
export class SessionLedger {
  constructor(private readonly db: Queryable) {}

  /** Records a charge: `accrued`, or `settled` at once when `settledBy` names a covering settlement. */
  async record(charge: SessionCharge): Promise<void> {
    await this.db.query(
      `INSERT INTO fortune.payments
         (id, route, rail, scheme, payer, claim_key, authorized_atomic, settled_atomic, state, reference,
          channel_id, channel_cumulative_atomic)
       VALUES ($1, $2, 'mpp', 'session', $3, $4, $5, CASE WHEN $6 = 'settled' THEN $5::bigint END, $6, $7, $8, $9)`,
      [
        newId("pay"),
        charge.route,
        charge.payer?.toLowerCase() ?? null,
        newId("mppsession"),
        charge.amountAtomic.toString(),
        charge.settledBy ? "settled" : "accrued",
        charge.settledBy ?? charge.channelId,
        charge.channelId,
        charge.channelCumulativeAtomic.toString(),
      ],
    );
  }

  /** Marks the channel's accrued charges that a settlement up to `amountAtomic` covers; how many. */
  async settleCovered(channelId: string, amountAtomic: bigint, txHash: string): Promise<number> {
    const rows = await this.db.query(
      `UPDATE fortune.payments
       SET state = 'settled', settled_atomic = authorized_atomic, reference = $3, updated_at = now()
       WHERE channel_id = $1 AND state = 'accrued' AND channel_cumulative_atomic <= $2
       RETURNING 1`,
      [channelId, amountAtomic.toString(), txHash],
    );
    return rows.length;
  }
}
