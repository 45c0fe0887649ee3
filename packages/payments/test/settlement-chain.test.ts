/**
 * EvmSettlementChain on a real chain: a settlement is `settled` only when a transaction moved the
 * tokens with its authorisation; a nonce the payer cancelled (EIP-3009 `cancelAuthorization`,
 * Permit2 `invalidateUnorderedNonces`) is spent too, and is never settled: `pending` until the
 * authorisation's deadline passes on chain, then `failed`.
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { createWalletClient, encodeFunctionData, type Hex, http, parseAbi } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AuthorizationFacts,
  authorizationFacts,
  decodePayment,
  EvmSettlementChain,
  isRefusal,
  PERMIT2_ADDRESS,
} from "../src/index.ts";
import { pay, payerClient, type Rails, startRails } from "./support.ts";

const { payer, deployer } = LOCAL_DEV_ACCOUNTS;

const TOKEN_ABI = parseAbi([
  "function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
]);
type Lookup = { transaction?: string; authorization: AuthorizationFacts };
const PERMIT2_ABI = parseAbi(["function invalidateUnorderedNonces(uint256 wordPos, uint256 mask)"]);

describe("EvmSettlementChain: what counts as a payment received", () => {
  let rails: Rails;
  let chain: EvmSettlementChain;
  /** Lookups of authorisations spent without paying, and of ones paid, judged again once expired. */
  const unpaid: Lookup[] = [];
  const paidOnes: Lookup[] = [];

  beforeAll(async () => {
    rails = await startRails();
    await rails.chain.fund(payer.address, "10");
    await rails.chain.approvePermit2(payer.privateKey);
    chain = new EvmSettlementChain(rails.anvil.rpcUrl);
  }, 120_000);
  afterAll(async () => {
    await rails?.stop();
  });

  const signed = async (scheme: "exact" | "upto", atomic: string) => {
    const { payload, requirements } = await pay(
      rails,
      payerClient(rails.chain, payer.privateKey),
      scheme,
      atomic,
    );
    const decoded = decodePayment(encodePaymentSignatureHeader(payload));
    if (isRefusal(decoded)) throw new Error(decoded.message);
    return { payload, requirements, facts: authorizationFacts(decoded.authorization, requirements.asset) };
  };

  const sender = () =>
    createWalletClient({
      account: privateKeyToAccount(deployer.privateKey),
      chain: rails.chain.publicClient.chain,
      transport: http(rails.anvil.rpcUrl),
    });
  const payerWallet = () =>
    createWalletClient({
      account: privateKeyToAccount(payer.privateKey),
      chain: rails.chain.publicClient.chain,
      transport: http(rails.anvil.rpcUrl),
    });
  const mined = (hash: Hex) => rails.chain.publicClient.waitForTransactionReceipt({ hash });

  /** The payer cancels an EIP-3009 authorisation with its signature (the deployer pays the gas). */
  const cancel = async (facts: AuthorizationFacts) => {
    const { asset, chainId } = rails.chain;
    const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
      domain: { name: asset.name, version: asset.version, chainId, verifyingContract: asset.address },
      types: {
        CancelAuthorization: [
          { name: "authorizer", type: "address" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "CancelAuthorization",
      message: { authorizer: facts.from as Hex, nonce: facts.nonce as Hex },
    });
    await mined(
      await sender().writeContract({
        address: asset.address,
        abi: TOKEN_ABI,
        functionName: "cancelAuthorization",
        args: [facts.from as Hex, facts.nonce as Hex, signature],
      }),
    );
  };

  it("an EIP-3009 settlement is settled, by its transaction or, without one, by the use logged for its nonce", async () => {
    const { payload, requirements, facts } = await signed("exact", "1500");
    const settled = await rails.facilitator.settle(payload, requirements);
    expect(settled.success).toBe(true);
    expect(await chain.outcome({ transaction: settled.transaction, authorization: facts })).toBe("settled");
    expect(await chain.outcome({ authorization: facts })).toBe("settled");
    paidOnes.push({ authorization: facts }, { transaction: settled.transaction, authorization: facts });
  });

  it("an EIP-3009 authorisation unused is pending until it expires", async () => {
    const { facts } = await signed("exact", "1500");
    expect(await chain.outcome({ authorization: facts })).toBe("pending");
    expect(await chain.outcome({ authorization: { ...facts, validBefore: "1" } })).toBe("failed");
  });

  it("a cancelled EIP-3009 authorisation is never settled, with no transaction or with one that reverted", async () => {
    const { payload, facts } = await signed("exact", "1500");
    await cancel(facts);
    expect(await chain.outcome({ authorization: facts })).toBe("pending");
    unpaid.push({ authorization: facts });

    // The settlement sent after the cancellation reverts (sent with its gas set: no simulation).
    const { authorization, signature } = payload.payload as {
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
    const reverted = await sender().sendTransaction({
      to: rails.chain.asset.address,
      gas: 200_000n,
      data: encodeFunctionData({
        abi: TOKEN_ABI,
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
      }),
    });
    expect((await mined(reverted)).status).toBe("reverted");
    expect(await chain.outcome({ transaction: reverted, authorization: facts })).toBe("pending");
    unpaid.push({ transaction: reverted, authorization: facts });
  });

  it("a transaction that paid another authorisation is not this one's payment", async () => {
    const first = await signed("exact", "1500");
    const other = await signed("exact", "1500");
    const paid = await rails.facilitator.settle(other.payload, other.requirements);
    expect(paid.success).toBe(true);
    await cancel(first.facts);
    // Same payer, payee and amount, another nonce: no payment for the cancelled one.
    expect(await chain.outcome({ transaction: paid.transaction, authorization: first.facts })).toBe(
      "pending",
    );
    unpaid.push({ transaction: paid.transaction, authorization: first.facts });
    paidOnes.push({ authorization: other.facts });
  });

  it("a Permit2 (upto) settlement is settled, by its transaction or, without one, by the proxy call that spent its nonce", async () => {
    const { payload, requirements, facts } = await signed("upto", "5000");
    const settled = await rails.server.settlePayment(payload, requirements, undefined, undefined, {
      amount: "2300",
    });
    expect(settled.success).toBe(true);
    expect(await chain.outcome({ transaction: settled.transaction, authorization: facts })).toBe("settled");
    expect(await chain.outcome({ authorization: facts })).toBe("settled");
    paidOnes.push({ authorization: facts });
  });

  it("a Permit2 nonce the payer invalidated is never settled, even beside a payment of the same amount to the same payee", async () => {
    const cancelled = await signed("upto", "5000");
    const other = await signed("upto", "5000");
    const paid = await rails.server.settlePayment(other.payload, other.requirements);
    expect(paid.success).toBe(true);

    const nonce = BigInt(cancelled.facts.nonce);
    await mined(
      await payerWallet().writeContract({
        address: PERMIT2_ADDRESS,
        abi: PERMIT2_ABI,
        functionName: "invalidateUnorderedNonces",
        args: [nonce >> 8n, 1n << (nonce & 255n)],
      }),
    );
    expect(await chain.authorizationUsed(cancelled.facts)).toBe(true);
    expect(await chain.outcome({ authorization: cancelled.facts })).toBe("pending");
    expect(await chain.outcome({ transaction: paid.transaction, authorization: cancelled.facts })).toBe(
      "pending",
    );
    unpaid.push(
      { authorization: cancelled.facts },
      { transaction: paid.transaction, authorization: cancelled.facts },
    );
    paidOnes.push({ authorization: other.facts });
  });

  it("once the chain's time is past their deadlines, the unpaid are failed and the paid still found", async () => {
    // Last: the chain's clock jumps an hour ahead of this machine's.
    await rails.chain.publicClient.request({ method: "evm_increaseTime", params: [3600] } as never);
    await rails.chain.publicClient.request({ method: "evm_mine", params: [] } as never);
    for (const lookup of unpaid) expect(await chain.outcome(lookup)).toBe("failed");
    for (const lookup of paidOnes) expect(await chain.outcome(lookup)).toBe("settled");
  });
});
