import type { Clock } from "@app/core";
import { GatewayError } from "../errors.ts";
import type { AccountStore, KeyRecord } from "../store/accounts.ts";
import type { IssuedWalletKey, WalletAccount, WalletAccounts } from "../store/wallet-accounts.ts";

/** The label of the key an account is opened with. */
export const FIRST_KEY_LABEL = "first";

export type AccountsDeps = { wallets: WalletAccounts; accounts: AccountStore; clock: Clock };

/**
 * Opens the wallet's gateway account with a first key (shown once); 409 `ACCOUNT_EXISTS` with
 * the account's id when the wallet already owns one (one per wallet: nothing new is made).
 */
export async function openWalletAccount(
  deps: AccountsDeps,
  wallet: string,
  name: string | undefined,
): Promise<{ account: WalletAccount; key: IssuedWalletKey }> {
  const opened = await deps.wallets.open(wallet, name ?? `wallet ${wallet.toLowerCase()}`, FIRST_KEY_LABEL);
  if ("exists" in opened) {
    throw new GatewayError("ACCOUNT_EXISTS", "This wallet already owns a gateway account.", {
      accountId: opened.exists.id,
    });
  }
  return { account: opened.opened, key: opened.key };
}

/** The account a signed-in wallet owns; 404 `ACCOUNT_NOT_FOUND` when it owns none. */
export async function accountOfWallet(
  deps: Pick<AccountsDeps, "wallets">,
  wallet: string,
): Promise<WalletAccount> {
  const account = await deps.wallets.byWallet(wallet);
  if (!account) throw accountNotFound(wallet);
  return account;
}

export function accountNotFound(wallet: string): GatewayError {
  return new GatewayError(
    "ACCOUNT_NOT_FOUND",
    "No gateway account is owned by this wallet: open one with POST /v1/accounts, signed in with it.",
    { wallet: wallet.toLowerCase() },
  );
}

/** Revokes a key of the account (a revoked one stays revoked); 404 `KEY_NOT_FOUND` for any other id. */
export async function revokeAccountKey(
  deps: AccountsDeps,
  accountId: string,
  keyId: string,
): Promise<KeyRecord> {
  const owned = (await deps.accounts.listKeys(accountId)).find((key) => key.id === keyId);
  if (!owned) throw new GatewayError("KEY_NOT_FOUND", "This account has no key with this id.", { keyId });
  if (owned.revokedAt) return owned;
  await deps.accounts.revokeKey(keyId, deps.clock.now());
  const revoked = (await deps.accounts.listKeys(accountId)).find((key) => key.id === keyId);
  return revoked ?? owned;
}
