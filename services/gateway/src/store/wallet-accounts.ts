import { type Clock, newId, systemClock } from "@app/core";
import type { Database, Queryable } from "@app/db";
import { AccountStore, type GatewayAccount, type KeyRecord } from "./accounts.ts";

/** An account owned by a wallet (self-serve), with the wallet that owns it. */
export type WalletAccount = GatewayAccount & { wallet: string };

/** A key issued to a wallet's account: the key (shown once) and its record. */
export type IssuedWalletKey = { key: string; record: KeyRecord };

type OwnedRow = { id: string; name: string; balance_micro: string; created_at: Date; owner_wallet: string };

const toAccount = (row: OwnedRow): WalletAccount => ({
  id: row.id,
  name: row.name,
  balanceMicro: BigInt(row.balance_micro),
  createdAt: row.created_at,
  wallet: row.owner_wallet,
});

const COLUMNS = "id, name, balance_micro::text AS balance_micro, created_at, owner_wallet";

/**
 * Accounts owned by wallets: one per wallet (a unique column, so concurrent opens from one wallet
 * make one account), the address kept lower-case. Keys are the account's ordinary gateway keys.
 */
export class WalletAccounts {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The account a wallet owns, if any. */
  async byWallet(wallet: string): Promise<WalletAccount | undefined> {
    const [row] = await this.db.query<OwnedRow>(
      `SELECT ${COLUMNS} FROM gateway.accounts WHERE owner_wallet = $1`,
      [wallet.toLowerCase()],
    );
    return row ? toAccount(row) : undefined;
  }

  /**
   * Opens the wallet's account with its first key, in one transaction; `exists` (the account it
   * already owns) when it has one, and then nothing is made.
   */
  async open(
    wallet: string,
    name: string,
    keyLabel: string,
  ): Promise<{ opened: WalletAccount; key: IssuedWalletKey } | { exists: WalletAccount }> {
    const owner = wallet.toLowerCase();
    const opened = await this.db.transaction(async (tx) => {
      const [row] = await tx.query<OwnedRow>(
        `INSERT INTO gateway.accounts (id, name, owner_wallet) VALUES ($1, $2, $3)
         ON CONFLICT (owner_wallet) DO NOTHING RETURNING ${COLUMNS}`,
        [newId("acct"), name, owner],
      );
      if (!row) return undefined;
      const account = toAccount(row);
      return { opened: account, key: await this.issueWith(tx, account.id, keyLabel) };
    });
    if (opened) return opened;
    const existing = await this.byWallet(owner);
    if (!existing) throw new Error("an account conflicted on its wallet and cannot be found");
    return { exists: existing };
  }

  /** Issues a key for the account (shown once), with its record. */
  issueKey(accountId: string, label: string): Promise<IssuedWalletKey> {
    return this.issueWith(this.db, accountId, label);
  }

  private async issueWith(db: Queryable, accountId: string, label: string): Promise<IssuedWalletKey> {
    const keys = new AccountStore(db, this.clock);
    const issued = await keys.issueKey(accountId, label);
    const record = (await keys.listKeys(accountId)).find((key) => key.id === issued.id);
    if (!record) throw new Error("an issued key cannot be found");
    return { key: issued.key, record };
  }
}
