import { newId } from "@app/core";
import type { Queryable } from "@app/db";
import type { StoredResponse } from "@app/edge";
import type { AuthorizationFacts } from "@app/payments";

/**
 * Where a payment stands: `verified` (claimed, handler running), `pending` (settlement broadcast,
 * not yet confirmed), `accrued` (covered by session vouchers, channel not yet settled), then
 * `settled`, `failed` or `canceled`.
 */
export type PaymentState = "verified" | "pending" | "accrued" | "settled" | "failed" | "canceled";

export type PaymentRecord = {
  id: string;
  route: string;
  rail: "x402" | "mpp";
  scheme: string;
  network: string | null;
  asset: string | null;
  payer: string | null;
  claimKey: string;
  authorizedAtomic: number;
  settledAtomic: number | null;
  state: PaymentState;
  reference: string | null;
  failureReason: string | null;
  idempotencyKey: string | null;
  /** The authorisation's public facts (x402), to ask the chain about it later. */
  authorizationFacts: AuthorizationFacts | null;
  /**
   * The response a `pending` payment bought (its body as the text to send), served to the payer's
   * retry once the chain confirms.
   */
  response: StoredResponse | null;
  /** Whether settling it makes its payer a member of the route (SIWX replay). */
  grantsEntitlement: boolean;
  /** Whether its response has been handed out (see {@link PaymentLedger.deliver}). */
  responseDelivered: boolean;
  createdAt: Date;
  updatedAt: Date;
};

/** The payments columns, named as {@link PaymentRecord}'s fields. */
const RECORD_COLUMNS = `id, route, rail, scheme, network, asset, payer, claim_key AS "claimKey",
  authorized_atomic AS "authorizedAtomic", settled_atomic AS "settledAtomic", state, reference,
  failure_reason AS "failureReason", idempotency_key AS "idempotencyKey",
  authorization_facts AS "authorizationFacts", response, grants_entitlement AS "grantsEntitlement",
  response_delivered AS "responseDelivered",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

export type NewPayment = {
  route: string;
  rail: "x402" | "mpp";
  scheme: string;
  network?: string;
  asset?: string;
  payer?: string;
  claimKey: string;
  authorizedAtomic: bigint;
  idempotencyKey?: string;
  authorizationFacts?: AuthorizationFacts;
  grantsEntitlement?: boolean;
};

/** The persistent record of every payment, on any rail, from verification to its final state. */
export class PaymentLedger {
  constructor(private readonly db: Queryable) {}

  /**
   * Claims a verified authorisation for one run of a handler. Returns the new
   * payment's id, or undefined when the same authorisation was already claimed
   * (by this or any other instance).
   */
  claim(payment: NewPayment): Promise<string | undefined> {
    return this.insert(payment, { state: "verified" });
  }

  /** Records a settlement: the amount that moved and its transaction hash or receipt reference. */
  async settled(
    id: string,
    settledAtomic: bigint,
    reference: string,
    options: { delivered?: boolean } = {},
  ): Promise<void> {
    await this.db.query(
      `UPDATE fortune.payments SET state = 'settled', settled_atomic = $2, reference = $3,
         response_delivered = response_delivered OR $4, updated_at = now()
       WHERE id = $1`,
      [id, settledAtomic.toString(), reference, options.delivered === true],
    );
  }

  /**
   * Keeps the response a claimed payment is about to buy, and the amount, before its settlement is
   * sent: a crash mid-settlement then leaves what the payer's retry (or the reconciler) needs.
   */
  async prepared(id: string, settledAtomic: bigint, response: StoredResponse): Promise<void> {
    await this.db.query(
      `UPDATE fortune.payments SET settled_atomic = $2, response = $3, updated_at = now() WHERE id = $1`,
      [id, settledAtomic.toString(), JSON.stringify(response)],
    );
  }

  /** Marks a payment's response handed out; false when it already was (it is handed out once). */
  async deliver(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE fortune.payments SET response_delivered = true WHERE id = $1 AND NOT response_delivered RETURNING 1`,
      [id],
    );
    return rows.length > 0;
  }

  /**
   * Records a settlement that was broadcast (or may have been) but not confirmed: its transaction
   * when known, the amount, and the response it bought, kept for the payer's retry.
   */
  async pending(id: string, settledAtomic: bigint, transaction: string | null, response: StoredResponse) {
    await this.db.query(
      `UPDATE fortune.payments SET state = 'pending', settled_atomic = $2, reference = $3, response = $4,
         updated_at = now()
       WHERE id = $1`,
      [id, settledAtomic.toString(), transaction, JSON.stringify(response)],
    );
  }

  /** A pending payment the chain confirmed; false when it was no longer pending. */
  async confirmed(id: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE fortune.payments SET state = 'settled', updated_at = now()
       WHERE id = $1 AND state IN ('pending', 'verified') RETURNING 1`,
      [id],
    );
    return rows.length > 0;
  }

  /** Records a settlement that failed: nothing was served. */
  async failed(id: string, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE fortune.payments SET state = 'failed', failure_reason = $2, updated_at = now() WHERE id = $1`,
      [id, reason.slice(0, 500)],
    );
  }

  /** Records a verified payment left unsettled because the handler refused the request. */
  async canceled(id: string, reason: string): Promise<void> {
    await this.db.query(
      `UPDATE fortune.payments SET state = 'canceled', failure_reason = $2, updated_at = now() WHERE id = $1`,
      [id, reason.slice(0, 500)],
    );
  }

  /** The payment an authorisation was claimed for, if any. */
  async byClaimKey(claimKey: string): Promise<PaymentRecord | undefined> {
    const rows = await this.db.query<PaymentRecord>(
      `SELECT ${RECORD_COLUMNS} FROM fortune.payments WHERE claim_key = $1`,
      [claimKey],
    );
    return rows[0];
  }

  /** Payments (x402, MPP charges) still `verified` or `pending` since before `before`: the reconciler's work. */
  async unfinished(before: Date): Promise<PaymentRecord[]> {
    return this.db.query<PaymentRecord>(
      `SELECT ${RECORD_COLUMNS} FROM fortune.payments
       WHERE state IN ('verified', 'pending') AND updated_at < $1
       ORDER BY updated_at LIMIT 100`,
      [before],
    );
  }

  /**
   * Records an MPP charge before it is sent: `pending`, with its transaction and the response it
   * buys, so a crash between the charge landing and {@link settled} leaves what the reconciler and
   * the payer's retry need. Its id, or undefined when the same credential was already claimed.
   */
  async chargePending(
    payment: NewPayment & { settledAtomic: bigint; reference: string; response: StoredResponse },
  ): Promise<string | undefined> {
    const id = await this.insert(payment, {
      state: "pending",
      settledAtomic: payment.settledAtomic,
      reference: payment.reference,
      response: payment.response,
    });
    if (id) return id;
    // A credential the MPP server refused before (its row `failed`) may be presented again: the
    // same signed transaction, still unspent, is tried once more, on the same row.
    const [reopened] = await this.db.query<{ id: string }>(
      `UPDATE fortune.payments SET state = 'pending', failure_reason = NULL, response = $2,
         idempotency_key = $3, route = $4, updated_at = now()
       WHERE claim_key = $1 AND state = 'failed' RETURNING id`,
      [payment.claimKey, JSON.stringify(payment.response), payment.idempotencyKey ?? null, payment.route],
    );
    return reopened?.id;
  }

  /** Inserts a payment unless its claim key is taken; its id, or undefined when it was. */
  private async insert(
    payment: NewPayment,
    outcome: { state: PaymentState; settledAtomic?: bigint; reference?: string; response?: StoredResponse },
  ): Promise<string | undefined> {
    const rows = await this.db.query<{ id: string }>(
      `INSERT INTO fortune.payments
         (id, route, rail, scheme, network, asset, payer, claim_key, authorized_atomic, settled_atomic,
          state, reference, idempotency_key, authorization_facts, grants_entitlement, response)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (claim_key) DO NOTHING
       RETURNING id`,
      [
        newId("pay"),
        payment.route,
        payment.rail,
        payment.scheme,
        payment.network ?? null,
        payment.asset ?? null,
        payment.payer?.toLowerCase() ?? null,
        payment.claimKey,
        payment.authorizedAtomic.toString(),
        outcome.settledAtomic?.toString() ?? null,
        outcome.state,
        outcome.reference ?? null,
        payment.idempotencyKey ?? null,
        payment.authorizationFacts ? JSON.stringify(payment.authorizationFacts) : null,
        payment.grantsEntitlement ?? false,
        outcome.response ? JSON.stringify(outcome.response) : null,
      ],
    );
    return rows[0]?.id;
  }

  async get(id: string): Promise<PaymentRecord | undefined> {
    const rows = await this.db.query<PaymentRecord>(
      `SELECT ${RECORD_COLUMNS} FROM fortune.payments WHERE id = $1`,
      [id],
    );
    return rows[0];
  }

  /** Every payment of a route, newest first (for tests and operators). */
  async forRoute(route: string): Promise<PaymentRecord[]> {
    return this.db.query<PaymentRecord>(
      `SELECT ${RECORD_COLUMNS} FROM fortune.payments WHERE route = $1 ORDER BY created_at DESC, id`,
      [route],
    );
  }
}
