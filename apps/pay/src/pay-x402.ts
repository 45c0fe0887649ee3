/**
 * Paying by x402 with the official clients: `@x402/fetch` `wrapFetchWithPayment`
 * around an `x402Client` (`@x402/core/client`) holding the `@x402/evm` exact and upto
 * client schemes for the demo wallet, with spend controls that allow our token.
 *
 * @module
 */
import { localChainDefinition } from "@app/local-chain";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { Network, PaymentRequired } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import { UptoEvmScheme } from "@x402/evm/upto/client";
import { wrapFetchWithPayment } from "@x402/fetch";
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { PayingWallet } from "./manifest.ts";

/** The x402 schemes the CLI pays with. */
export type X402Scheme = "exact" | "upto";

/** Largest single x402 payment the CLI signs: 1 LocalUSD, in atomic units (6 decimals). */
export const MAX_X402_PAYMENT_ATOMIC = "1000000";

/** The route answered 402 with an MPP challenge only: it cannot be paid by x402. */
export class MppOnlyRoute extends Error {
  override readonly name = "MppOnlyRoute";
  constructor() {
    super("this route is paid by MPP only: use --scheme mpp");
  }
}

/** Paying failed before the server could answer (no usable offer, a refused spend, a network error). */
export class PaymentError extends Error {
  override readonly name = "PaymentError";
}

/** The paid (or refused) response, and the x402 offer the route made on its first 402. */
export type X402Outcome = { response: Response; offered?: PaymentRequired };

/**
 * The official x402 client for the demo wallet on the local chain: `exact` and/or
 * `upto` on `eip155:<chainId>`, our token allowed up to {@link MAX_X402_PAYMENT_ATOMIC}
 * a payment. Given no scheme, both are registered and the client takes the one the
 * route offers.
 */
export function createX402Client(
  target: PayingWallet,
  scheme?: X402Scheme,
  maxAtomic: string = MAX_X402_PAYMENT_ATOMIC,
): x402Client {
  const network: Network = `eip155:${target.chain.chainId}`;
  const publicClient = createPublicClient({
    chain: localChainDefinition(target.chain.rpcUrl, target.chain.chainId),
    transport: http(target.chain.rpcUrl),
  });
  const signer = toClientEvmSigner(privateKeyToAccount(target.wallet.privateKey), publicClient);
  const client = new x402Client();
  if (scheme !== "upto") client.register(network, new ExactEvmScheme(signer));
  if (scheme !== "exact") client.register(network, new UptoEvmScheme(signer));
  return client.setSpendControls({
    allowedAssets: [{ network, asset: target.chain.x402Asset, maxAmountPerPayment: maxAtomic }],
  });
}

/**
 * Sends the request through `wrapFetchWithPayment`: an unpaid try, then, on a 402,
 * one paid retry. Throws {@link MppOnlyRoute} when the 402 offers MPP only, and
 * {@link PaymentError} when no payment could be made.
 */
export async function payX402(
  target: PayingWallet,
  url: string,
  init: RequestInit,
  scheme?: X402Scheme,
  maxAtomic?: string,
): Promise<X402Outcome> {
  let offered: PaymentRequired | undefined;
  const observingFetch: typeof fetch = async (input, requestInit) => {
    const response = await fetch(input, requestInit);
    if (response.status === 402 && offered === undefined) {
      const header = response.headers.get("payment-required");
      if (header) offered = decodeOffer(header);
      else if (/^Payment\s/i.test(response.headers.get("www-authenticate") ?? "")) throw new MppOnlyRoute();
    }
    return response;
  };
  const paying = wrapFetchWithPayment(observingFetch, createX402Client(target, scheme, maxAtomic));
  try {
    const response = await paying(url, init);
    return offered ? { response, offered } : { response };
  } catch (error) {
    if (error instanceof MppOnlyRoute) throw error;
    const message = error instanceof Error ? error.message : String(error);
    const schemes = offered?.accepts.map((accept) => accept.scheme) ?? [];
    if (scheme && schemes.length > 0 && !schemes.includes(scheme)) {
      throw new PaymentError(
        `this route asks for x402 ${schemes.join(" or ")}, not ${scheme}: use --scheme ${schemes[0]} or leave --scheme out`,
        { cause: error },
      );
    }
    throw new PaymentError(message, { cause: error });
  }
}

function decodeOffer(header: string): PaymentRequired | undefined {
  try {
    return decodePaymentRequiredHeader(header);
  } catch {
    return undefined;
  }
}
