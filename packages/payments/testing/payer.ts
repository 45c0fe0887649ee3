import type { LocalChain } from "@app/local-chain";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import {
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from "@x402/extensions/sign-in-with-x";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

/** An x402 scheme a test wallet signs payments for. */
export type PayerScheme = "exact" | "upto";

/**
 * The official x402 client for a wallet on the local chain: it signs the `schemes` given (`exact`
 * unless told) and may spend LocalUSD only, so a test sees a service that asks for anything else refused.
 */
export function localPayerClient(
  chain: LocalChain,
  privateKey: Hex,
  schemes: readonly PayerScheme[] = ["exact"],
): x402Client {
  const signer = toClientEvmSigner(privateKeyToAccount(privateKey), chain.publicClient);
  const client = new x402Client();
  for (const scheme of schemes) {
    client.register(
      chain.network,
      scheme === "exact" ? new ExactEvmScheme(signer) : new UptoEvmScheme(signer),
    );
  }
  return client.setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.asset.address }] });
}

/**
 * The `sign-in-with-x` header that answers a route's 402 sign-in challenge for a wallet, signed with
 * the official SIWX helpers for the URI the challenge names (the service's public origin, which is
 * where it is signed for). Throws when `challenge` is not a 402 with a PAYMENT-REQUIRED header.
 */
export async function answerSignInChallenge(challenge: Response, privateKey: Hex): Promise<string> {
  const header = challenge.headers.get("payment-required");
  if (challenge.status !== 402 || !header)
    throw new Error(`expected a 402 challenge, got ${challenge.status}`);
  const extension = decodePaymentRequiredHeader(header).extensions?.[SIGN_IN_WITH_X] as SIWxExtension;
  const chainInfo = extension.supportedChains[0] as { chainId: string; type: "eip191" };
  const payload = await createSIWxPayload(
    { ...extension.info, chainId: chainInfo.chainId, type: chainInfo.type },
    privateKeyToAccount(privateKey),
    extension.info.uri,
  );
  return encodeSIWxHeader(payload);
}
