import type { Database } from "@app/db";
import type { AuthorizationFacts } from "@app/payments";
import { addToBalance } from "./ledger.ts";

export type CreditProtocol = "x402" | "mpp";

/** A payment for credit, from its claim until the chain has said how it ended. */
export type CreditPayment = {
  reference: string;
  accountId: string;
  protocol: CreditProtocol;
  amountMicro: bigint;
  state: "pending" | "credited" | "failed";
  transaction: string | null;
  authorization: AuthorizationFacts | null;
  createdAt: Date;
  updatedAt: Date;
};

type Row = {
  reference: string;
  account_id: string;
  protocol: CreditProtocol;
  amount_micro: string;
  state: CreditPayment["state"];
  transaction_hash: string | null;
  authorization_facts: AuthorizationFacts | null;
  created_at: Date;
  updated_at: Date;
};

const COLUMNS = `reference, account_id, protocol, amount_micro::text AS amount_micro, state, transaction_hash,
  authorization_facts, created_at, updated_at`;

const toPayment = (row: Row): CreditPayment => ({
  reference: row.reference,
  accountId: row.account_id,
  protocol: row.protocol,
  amountMicro: BigInt(row.amount_micro),
  state: row.state,
  transaction: row.transaction_hash,
  authorization: row.authorization_facts,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

/** What a payment credited: the balance it left, and the transaction that settled it (when known). */
export type Credited = { balanceMicro: bigint; transaction: string | null };

/**
 * Payments for credit (`gateway.credit_payments`). A payment is claimed by its settlement
 * reference before it is sent to the chain, so one payment is sent and credited once however many
 * copies arrive; it is credited (its ledger row written, naming the reference and the transaction)
 * only once the chain confirmed it, in one transaction with its move to `credited`, which only a
 * `pending` payment makes.
 */
export class CreditPayments {
  constructor(private readonly db: Database) {}

  /** Claims a payment about to be sent; false when its reference was claimed before (another copy). */
  async claim(payment: {
    reference: string;
    accountId: string;
    protocol: CreditProtocol;
    amountMicro: bigint;
    transaction?: string;
    authorization?: AuthorizationFacts;
  }): Promise<boolean> {
    const rows = await this.db.query(
      `INSERT INTO gateway.credit_payments
         (reference, account_id, protocol, amount_micro, transaction_hash, authorization_facts)
       VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (reference) DO NOTHING RETURNING 1`,
      [
        payment.reference,
        payment.accountId,
        payment.protocol,
        payment.amountMicro.toString(),
        payment.transaction ?? null,
        payment.authorization ? JSON.stringify(payment.authorization) : null,
      ],
    );
    return rows.length === 1;
  }

  async get(reference: string): Promise<CreditPayment | undefined> {
    const [row] = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM gateway.credit_payments WHERE reference = $1`,
      [reference],
    );
    return row ? toPayment(row) : undefined;
  }

  /**
   * Credits a payment the chain settled in `transaction`: the payment becomes `credited` and the
   * account's balance and ledger take the amount, in one transaction. Undefined when the payment
   * is no longer `pending` (credited already, or failed): nothing is credited twice.
   */
  credit(reference: string, transaction: string | null): Promise<Credited | undefined> {
    return this.db.transaction(async (tx) => {
      const [row] = await tx.query<Row>(
        `UPDATE gateway.credit_payments
         SET state = 'credited', transaction_hash = coalesce($2, transaction_hash), updated_at = now()
         WHERE reference = $1 AND state = 'pending' RETURNING ${COLUMNS}`,
        [reference, transaction],
      );
      if (!row) return undefined;
      const payment = toPayment(row);
      const settled = payment.transaction;
      const balanceMicro = await addToBalance(tx, {
        accountId: payment.accountId,
        amountMicro: payment.amountMicro,
        kind: "credit",
        note: `bought with ${payment.protocol}`,
        settlement: { protocol: payment.protocol, reference, transaction: settled },
      });
      if (balanceMicro === undefined) throw new Error(`the account of credit payment ${reference} is gone`);
      return { balanceMicro, transaction: settled };
    });
  }

  /** The settlement was sent and is not confirmed yet: kept `pending`, with its transaction when known. */
  async sent(reference: string, transaction: string | null): Promise<void> {
    await this.db.query(
      `UPDATE gateway.credit_payments
       SET transaction_hash = coalesce($2, transaction_hash), updated_at = now()
       WHERE reference = $1 AND state = 'pending'`,
      [reference, transaction],
    );
  }

  /** Nothing was taken (refused, reverted, expired unused): `failed`, never credited. False if no longer pending. */
  async fail(reference: string, failure: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE gateway.credit_payments SET state = 'failed', failure = $2, updated_at = now()
       WHERE reference = $1 AND state = 'pending' RETURNING 1`,
      [reference, failure],
    );
    return rows.length === 1;
  }

  /** Payments still `pending` and untouched since `before`: their request is gone, the chain decides. */
  async unfinished(before: Date, limit = 100): Promise<CreditPayment[]> {
    const rows = await this.db.query<Row>(
      `SELECT ${COLUMNS} FROM gateway.credit_payments WHERE state = 'pending' AND updated_at < $1
       ORDER BY updated_at LIMIT $2`,
      [before, limit],
    );
    return rows.map(toPayment);
  }

  /** The balance a credited payment left (its ledger row's), for a response built after the fact. */
  async creditedBalance(reference: string): Promise<bigint | undefined> {
    const [row] = await this.db.query<{ balance: string }>(
      `SELECT balance_after_micro::text AS balance FROM gateway.ledger WHERE settlement_reference = $1`,
      [reference],
    );
    return row ? BigInt(row.balance) : undefined;
  }
}
