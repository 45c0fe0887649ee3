import { requestHeader } from "@app/core";
import type { SiwxIdentity } from "@app/payments";
import type { Context } from "hono";
import { accountOfWallet } from "../self-serve/accounts.ts";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import { signedInWallet } from "../self-serve/sign-in.ts";
import type { WalletAccount } from "../store/wallet-accounts.ts";

/** The sign-in header's name. */
export const SIWX_HEADER = "sign-in-with-x";

/** What the sign-in of the key routes (`/v1/keys`) is for, as its challenge says. */
export const KEYS_SIGN_IN = "Gateway keys of your wallet's account";

type SignInDeps = Pick<SelfServeDeps, "siwx" | "challenges">;

/**
 * The wallet signed in on this request (its `SIGN-IN-WITH-X` header) for the resource at `path`;
 * else the 402 with a fresh challenge saying `description` is thrown.
 */
export function signedInWalletOf(
  c: Context,
  deps: SignInDeps,
  path: string,
  description: string,
): Promise<SiwxIdentity> {
  return signedInWallet(deps, requestHeader(c, SIWX_HEADER), path, description);
}

/**
 * The account owned by the wallet signed in on this request, as {@link signedInWalletOf} checks
 * it. The signature is verified before the account is looked up, so only the wallet itself learns
 * that it owns none (404 `ACCOUNT_NOT_FOUND`): a caller who cannot sign for a wallet gets the same
 * 402 whether it owns an account or not.
 */
export async function signedInAccountOf(
  c: Context,
  deps: SignInDeps & Pick<SelfServeDeps, "wallets">,
  path: string,
  description: string,
): Promise<WalletAccount> {
  const identity = await signedInWalletOf(c, deps, path, description);
  return accountOfWallet(deps, identity.wallet);
}
