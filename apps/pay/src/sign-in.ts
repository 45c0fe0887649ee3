/**
 * Signing in with the demo wallet (Sign-In-With-X) where a route asks for it: the route's 402
 * carries the challenge in `PAYMENT-REQUIRED` (`extensions["sign-in-with-x"]`), answered with the
 * official helpers of `@x402/extensions`, and the request is sent again with `SIGN-IN-WITH-X`.
 *
 * @module
 */
import { decodePaymentRequiredHeader } from "@x402/core/http";
import {
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from "@x402/extensions/sign-in-with-x";
import { privateKeyToAccount } from "viem/accounts";
import type { PayingWallet } from "./manifest.ts";

/** The sign-in challenge of a 402, if it carries one. */
function challengeOf(response: Response): SIWxExtension | undefined {
  const header = response.headers.get("payment-required");
  if (response.status !== 402 || !header) return undefined;
  try {
    return decodePaymentRequiredHeader(header).extensions?.[SIGN_IN_WITH_X] as SIWxExtension | undefined;
  } catch {
    return undefined;
  }
}

/**
 * Sends the request; when it is answered with a sign-in challenge, signs it with the wallet and
 * sends it once more, signed in. Any other answer comes back as it is.
 */
export async function fetchSignedIn(wallet: PayingWallet, url: string, init: RequestInit): Promise<Response> {
  const first = await fetch(url, init);
  const challenge = challengeOf(first);
  if (!challenge) return first;
  const chain = challenge.supportedChains[0] as { chainId: string; type: "eip191" } | undefined;
  if (!chain) return first;
  const payload = await createSIWxPayload(
    { ...challenge.info, chainId: chain.chainId, type: chain.type },
    privateKeyToAccount(wallet.wallet.privateKey),
    challenge.info.uri,
  );
  const headers = new Headers(init.headers);
  headers.set("sign-in-with-x", encodeSIWxHeader(payload));
  return fetch(url, { ...init, headers });
}
