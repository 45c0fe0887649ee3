/**
 * AUDIT (real chain): EvmSettlementChain.outcome decides that a settlement "failed" when the
 * authorisation is unused on chain and the *service's* clock is past validBefore. The chain
 * decides with its own block time. With the service's clock ahead (a clock skew), or an RPC node
 * behind the head, a broadcast settlement still waiting in the mempool is declared failed, the
 * ledger row `failed` (its premium use given back, the payer's retries answered 402
 * settlement_failed) — and then the transaction mines and the money moves: paid, never served.
 */
import { EvmSettlementChain } from "@app/payments";
import { test } from "@app/testkit";
import { createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, vi } from "vitest";
import {
  challengeOf,
  type FortuneHarness,
  KEYS,
  PAYEE,
  spareAccount,
  startFortune,
} from "../../testing/harness.ts";

async function rpc(h: FortuneHarness, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await fetch(h.chain.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

describe("AUDIT: a settlement's outcome is judged by the service's clock, not the chain's", () => {
  let h: FortuneHarness;
  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
  });
  afterAll(async () => {
    await rpc(h, "evm_setAutomine", [true]).catch(() => undefined);
    await rpc(h, "evm_setIntervalMining", [1]).catch(() => undefined);
    await h?.stop();
  });

  test("a broadcast settlement the chain can still include is pending, not failed, when the service's clock runs ahead", async () => {
    const probe = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    const payment = await h.x402Client(KEYS.payer).createPaymentPayload(challengeOf(probe));
    const { authorization, signature } = payment.payload as {
      signature: Hex;
      authorization: {
        from: Hex;
        to: Hex;
        value: string;
        validAfter: string;
        validBefore: string;
        nonce: Hex;
      };
    };
    const payeeBefore = await h.chain.balanceOf(PAYEE);

    // Mining stalls; the settlement is broadcast (here by another account, as a facilitator would).
    await rpc(h, "evm_setAutomine", [false]);
    await rpc(h, "evm_setIntervalMining", [0]);
    const submitter = createWalletClient({
      account: privateKeyToAccount(spareAccount(7)),
      chain: h.chain.chain,
      transport: http(h.chain.rpcUrl),
    });
    const hash = await submitter.writeContract({
      address: h.chain.asset.address,
      abi: h.chain.assetAbi,
      functionName: "transferWithAuthorization",
      args: [
        authorization.from,
        authorization.to,
        BigInt(authorization.value),
        BigInt(authorization.validAfter),
        BigInt(authorization.validBefore),
        authorization.nonce,
        signature,
      ],
    });

    // The service's clock is past validBefore (a skew, a lagging node): the chain's own time decides.
    vi.useFakeTimers({ now: (Number(authorization.validBefore) + 300) * 1000, toFake: ["Date"] });
    let outcome: string;
    try {
      outcome = await new EvmSettlementChain(h.chain.rpcUrl).outcome({
        transaction: hash,
        authorization: {
          kind: "eip3009",
          from: authorization.from.toLowerCase(),
          to: authorization.to.toLowerCase(),
          value: authorization.value,
          nonce: authorization.nonce,
          token: h.chain.asset.address.toLowerCase(),
          validAfter: authorization.validAfter,
          validBefore: authorization.validBefore,
        },
      });
    } finally {
      vi.useRealTimers();
    }

    // Mining resumes: the "failed" settlement lands and the payer's money moves.
    await rpc(h, "evm_mine");
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash });
    expect(receipt.status).toBe("success");
    expect((await h.chain.balanceOf(PAYEE)) - payeeBefore).toBe(1000n);

    expect(outcome).toBe("pending");
  });
});
