import { newId } from "@app/core";
import type { Database } from "@app/db";
import { apiKeyHash, isPlausibleApiKey, issueApiKey, sameKeyHash } from "@app/edge";

/** The prefix of paper account tokens, so a leaked one is recognisable. */
export const ACCOUNT_TOKEN_PREFIX = "pmk";

export type PaperAccount = { id: string; label: string | null; balanceMicro: bigint; createdAt: Date };

type AccountRow = { id: string; label: string | null; balance_micro: string; created_at: Date };

const toAccount = (row: AccountRow): PaperAccount => ({
  id: row.id,
  label: row.label,
  balanceMicro: BigInt(row.balance_micro),
  createdAt: row.created_at,
});

/**
 * Paper accounts and the tokens that open them: one token per account, issued, kept and checked
 * as an API key is (`@app/edge`: a 256-bit secret shown once, its SHA-256 kept, compared in
 * constant time).
 */
export class PaperAccountStore {
  constructor(private readonly db: Database) {}

  /** Opens an account with `balanceMicro`; the token is returned here and never again. */
  async create(
    balanceMicro: bigint,
    label: string | null,
  ): Promise<{ account: PaperAccount; token: string }> {
    const { key: token, hash } = issueApiKey(ACCOUNT_TOKEN_PREFIX);
    const [row] = await this.db.query<AccountRow>(
      `INSERT INTO markets.accounts (id, token_hash, label, balance_micro) VALUES ($1, $2, $3, $4)
       RETURNING id, label, balance_micro::text AS balance_micro, created_at`,
      [newId("acct"), hash, label, balanceMicro.toString()],
    );
    return { account: toAccount(row as AccountRow), token };
  }

  /** The account a token opens, if any. */
  async authenticate(token: string): Promise<PaperAccount | undefined> {
    if (!isPlausibleApiKey(token)) return undefined;
    const hash = apiKeyHash(token);
    const [row] = await this.db.query<AccountRow & { token_hash: string }>(
      `SELECT id, label, balance_micro::text AS balance_micro, created_at, token_hash
       FROM markets.accounts WHERE token_hash = $1`,
      [hash],
    );
    return row && sameKeyHash(hash, row.token_hash) ? toAccount(row) : undefined;
  }

  async get(id: string): Promise<PaperAccount | undefined> {
    const [row] = await this.db.query<AccountRow>(
      "SELECT id, label, balance_micro::text AS balance_micro, created_at FROM markets.accounts WHERE id = $1",
      [id],
    );
    return row ? toAccount(row) : undefined;
  }
}
