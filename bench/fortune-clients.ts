import { LOCAL_DEV_MNEMONIC, type LocalChain } from "@app/local-chain";
import { x402Client } from "@x402/core/client";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme } from "@x402/evm/exact/client";
import {
  createSIWxPayload,
  encodeSIWxHeader,
  SIGN_IN_WITH_X,
  type SIWxExtension,
} from "@x402/extensions/sign-in-with-x";
import { type Hex, toHex } from "viem";
import { mnemonicToAccount, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { mapConcurrent } from "./loader.ts";

/** The x402 challenge of an unpaid call (asserts the 402 and its `PAYMENT-REQUIRED` header). */
export async function challenge(url: string, init: RequestInit = {}): Promise<PaymentRequired> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  const header = res.headers.get("payment-required");
  if (res.status !== 402 || !header)
    throw new Error(`expected a 402 challenge from ${url}, got ${res.status}`);
  return decodePaymentRequiredHeader(header);
}

/**
 * Signed `SIGN-IN-WITH-X` headers for `path`, one per server-issued nonce: asks the route for
 * `count` challenges (`concurrency` at a time) and answers each with the official helpers,
 * the wallets taking turns. Stops early at `maxSeconds`.
 */
export async function siwxHeaders(
  origin: string,
  path: string,
  accounts: PrivateKeyAccount[],
  count: number,
  options: { concurrency: number; maxSeconds: number },
): Promise<string[]> {
  const deadline = performance.now() + options.maxSeconds * 1000;
  const headers = await mapConcurrent(
    Array.from({ length: count }, (_, i) => i),
    options.concurrency,
    async (i) => {
      if (performance.now() > deadline) return undefined;
      const required = await challenge(`${origin}${path}`);
      const extension = required.extensions?.[SIGN_IN_WITH_X] as SIWxExtension | undefined;
      const chain = extension?.supportedChains[0] as { chainId: string; type: "eip191" } | undefined;
      if (!extension || !chain) throw new Error(`${path}: the 402 carries no sign-in-with-x challenge`);
      const account = accounts[i % accounts.length] as PrivateKeyAccount;
      const payload = await createSIWxPayload(
        { ...extension.info, chainId: chain.chainId, type: chain.type },
        account,
        `${origin}${path}`,
      );
      return encodeSIWxHeader(payload);
    },
  );
  return headers.filter((header): header is string => header !== undefined);
}

/** The official x402 client for a wallet: `exact` on the local chain, spending only its token. */
export function payingClient(chain: LocalChain, privateKey: Hex): x402Client {
  return new x402Client()
    .register(
      chain.network,
      new ExactEvmScheme(toClientEvmSigner(privateKeyToAccount(privateKey), chain.publicClient)),
    )
    .setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.asset.address }] });
}

/** `count` payment payloads for one challenge, the clients taking turns; each has its own EIP-3009 nonce. */
export async function signPayments(
  clients: x402Client[],
  required: PaymentRequired,
  count: number,
): Promise<PaymentPayload[]> {
  const payloads: PaymentPayload[] = [];
  for (let i = 0; i < count; i++) {
    payloads.push(await (clients[i % clients.length] as x402Client).createPaymentPayload(required));
  }
  return payloads;
}

/**
 * A key of the local chain's prefunded accounts that no role of the service uses (#8), so the
 * bench's own facilitator never races the service's facilitator (#5) for transaction nonces.
 */
export function spareKey(): Hex {
  const key = mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 8 }).getHdKey().privateKey;
  if (!key) throw new Error("no private key derived");
  return toHex(key);
}
