/**
 * Shared test fixtures: a fresh anvil per test file, bootstrapped, with the official x402 client
 * and resource server wired to the in-process facilitator.
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  type AnvilHandle,
  bootstrapLocalChain,
  LOCAL_DEV_ACCOUNTS,
  type LocalChain,
  startAnvil,
} from "@app/local-chain";
import { x402Client } from "@x402/core/client";
import { x402ResourceServer } from "@x402/core/server";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { toClientEvmSigner } from "@x402/evm";
import { ExactEvmScheme as ExactEvmClient } from "@x402/evm/exact/client";
import { ExactEvmScheme as ExactEvmServer } from "@x402/evm/exact/server";
import { UptoEvmScheme as UptoEvmClient } from "@x402/evm/upto/client";
import { UptoEvmScheme as UptoEvmServer } from "@x402/evm/upto/server";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { createLocalFacilitator, type LocalFacilitatorClient } from "../src/index.ts";

/** Artifact cache shared by the test files (gitignored `.data/`). */
export const TEST_CACHE_DIR = join(fileURLToPath(new URL("..", import.meta.url)), ".data", "test-cache");

export interface Rails {
  anvil: AnvilHandle;
  chain: LocalChain;
  facilitator: LocalFacilitatorClient;
  server: x402ResourceServer;
  stop(): Promise<void>;
}

/** Starts anvil, bootstraps it and builds an initialised resource server on the in-process facilitator. */
export async function startRails(): Promise<Rails> {
  const anvil = await startAnvil();
  try {
    const chain = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: LOCAL_DEV_ACCOUNTS.deployer.privateKey,
      cacheDir: TEST_CACHE_DIR,
    });
    const facilitator = createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      chainId: chain.chainId,
      signerPrivateKey: LOCAL_DEV_ACCOUNTS.facilitator.privateKey,
    });
    const server = new x402ResourceServer(facilitator)
      .register(chain.network, new ExactEvmServer())
      .register(chain.network, new UptoEvmServer());
    await server.initialize();
    return { anvil, chain, facilitator, server, stop: () => anvil.stop() };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/** The official x402 client for one wallet, with spend controls that allow LocalUSD. */
export function payerClient(chain: LocalChain, privateKey: Hex): x402Client {
  const signer = toClientEvmSigner(privateKeyToAccount(privateKey), chain.publicClient);
  return new x402Client()
    .register(chain.network, new ExactEvmClient(signer))
    .register(chain.network, new UptoEvmClient(signer))
    .setSpendControls({ allowedAssets: [{ network: chain.network, asset: chain.asset.address }] });
}

/** Builds the server's requirements for one price and has `client` sign a payment for them. */
export async function pay(
  rails: Rails,
  client: x402Client,
  scheme: "exact" | "upto",
  atomicAmount: string,
): Promise<{ payload: PaymentPayload; requirements: PaymentRequirements }> {
  const { chain, server } = rails;
  const [requirements] = await server.buildPaymentRequirements({
    scheme,
    network: chain.network,
    payTo: LOCAL_DEV_ACCOUNTS.payee.address,
    price: {
      amount: atomicAmount,
      asset: chain.asset.address,
      extra: { name: chain.asset.name, version: chain.asset.version },
    },
  });
  if (!requirements) throw new Error("no requirements built");
  const paymentRequired = await server.createPaymentRequiredResponse([requirements], {
    url: "http://127.0.0.1/test",
  });
  const payload = await client.createPaymentPayload(paymentRequired);
  return { payload, requirements };
}
