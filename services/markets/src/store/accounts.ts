import { createHash } from "node:crypto";
import { newId, newSecret } from "@app/core";
import type { Database } from "@app/db";

/** The prefix of paper account tokens, so a leaked one is recognisable. */
export const ACCOUNT_TOKEN_PREFIX = "pmk";

export type Account = { id: string; label: string | null; balanceMicro: bigint; createdAt: Date };

type AccountRow = { id: string; label: string | null; balance_micro: string; created_at: Date };

const toAccount = (row: AccountRow): Account => ({
  id: row.id,
  label: row.label,
  balanceMicro: BigInt(row.balance_micro),
  createdAt: row.created_at,
});

/** SHA-256 of a token, hex: what the database keeps instead of the token. */
export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Paper accounts and the tokens that open them. */
export class AccountStore {
  constructor(private readonly db: Database) {}

  /** Opens an account with `balanceMicro`; the token is returned here and never again. */
  async create(balanceMicro: bigint, label: string | null): Promise<{ account: Account; token: string }> {
    const token = newSecret(ACCOUNT_TOKEN_PREFIX);
    const [row] = await this.db.query<AccountRow>(
      `INSERT INTO markets.accounts (id, token_hash, label, balance_micro) VALUES ($1, $2, $3, $4)
       RETURNING id, label, balance_micro::text AS balance_micro, created_at`,
      [newId("acct"), hashToken(token), label, balanceMicro.toString()],
    );
    return { account: toAccount(row as AccountRow), token };
  }

  /** The account a token opens, if any. */
  async authenticate(token: string): Promise<Account | undefined> {
    const [row] = await this.db.query<AccountRow>(
      `SELECT id, label, balance_micro::text AS balance_micro, created_at
       FROM markets.accounts WHERE token_hash = $1`,
      [hashToken(token)],
    );
    return row ? toAccount(row) : undefined;
  }

  async get(id: string): Promise<Account | undefined> {
    const [row] = await this.db.query<AccountRow>(
      "SELECT id, label, balance_micro::text AS balance_micro, created_at FROM markets.accounts WHERE id = $1",
      [id],
    );
    return row ? toAccount(row) : undefined;
  }
}
