import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { parseErc6492Signature } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { pay, payerClient, type Rails, startRails } from "./support.ts";

const { payer, payee, otherPayer } = LOCAL_DEV_ACCOUNTS;

interface Eip3009Payload {
  signature: `0x${string}`;
  authorization: {
    from: `0x${string}`;
    to: `0x${string}`;
    value: string;
    validAfter: string;
    validBefore: string;
    nonce: `0x${string}`;
  };
}

describe("x402 exact (EIP-3009) through the in-process facilitator", () => {
  let rails: Rails;

  beforeAll(async () => {
    rails = await startRails();
    await rails.chain.fund(payer.address, "10");
  }, 120_000); // may compile cold on a fresh checkout
  afterAll(async () => {
    await rails?.stop();
  });

  it("verifies and settles a payment made by the official client, moving exactly the amount", async () => {
    const { chain, facilitator } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "exact", "1000");
    expect(payload.x402Version).toBe(2);
    expect(requirements.extra).toMatchObject({ name: "USD Coin", version: "1" });
    const payerBefore = await chain.balanceOf(payer.address);
    const payeeBefore = await chain.balanceOf(payee.address);

    const verified = await facilitator.verify(payload, requirements);
    expect(verified).toMatchObject({ isValid: true, payer: payer.address });

    const settled = await facilitator.settle(payload, requirements);
    expect(settled.success).toBe(true);
    expect(settled.network).toBe(chain.network);
    expect(settled.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await chain.publicClient.getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    });
    expect(receipt.status).toBe("success");

    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - 1000n);
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + 1000n);
  });

  it("refuses a replay of the same payload (verify and settle), with no second transfer", async () => {
    const { chain, facilitator } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "exact", "2500");
    const first = await facilitator.settle(payload, requirements);
    expect(first.success).toBe(true);
    const payeeAfterFirst = await chain.balanceOf(payee.address);

    const reVerify = await facilitator.verify(payload, requirements);
    expect(reVerify.isValid).toBe(false);
    expect(reVerify.invalidReason).toBe("invalid_exact_evm_nonce_already_used");

    const reSettle = await facilitator.settle(payload, requirements);
    expect(reSettle.success).toBe(false);
    expect(await chain.balanceOf(payee.address)).toBe(payeeAfterFirst);
  });

  it("settles through x402ResourceServer too (verifyPayment + settlePayment)", async () => {
    const { chain, server } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "exact", "777");
    const payeeBefore = await chain.balanceOf(payee.address);
    const verified = await server.verifyPayment(payload, requirements);
    expect(verified.isValid).toBe(true);
    const settled = await server.settlePayment(payload, requirements);
    expect(settled.success).toBe(true);
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + 777n);
  });

  it("fails verify when the authorization was signed by another wallet", async () => {
    const { chain, facilitator } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "exact", "1000");
    const inner = payload.payload as unknown as Eip3009Payload;
    // otherPayer signs the very same TransferWithAuthorization (from = payer).
    const forgedSignature = await privateKeyToAccount(otherPayer.privateKey).signTypedData({
      domain: {
        name: chain.asset.name,
        version: chain.asset.version,
        chainId: chain.chainId,
        verifyingContract: chain.asset.address,
      },
      types: {
        TransferWithAuthorization: [
          { name: "from", type: "address" },
          { name: "to", type: "address" },
          { name: "value", type: "uint256" },
          { name: "validAfter", type: "uint256" },
          { name: "validBefore", type: "uint256" },
          { name: "nonce", type: "bytes32" },
        ],
      },
      primaryType: "TransferWithAuthorization",
      message: {
        from: inner.authorization.from,
        to: inner.authorization.to,
        value: BigInt(inner.authorization.value),
        validAfter: BigInt(inner.authorization.validAfter),
        validBefore: BigInt(inner.authorization.validBefore),
        nonce: inner.authorization.nonce,
      },
    });
    expect(parseErc6492Signature(forgedSignature).signature).toBe(forgedSignature);
    const forged = { ...payload, payload: { ...inner, signature: forgedSignature } };
    const payerBefore = await chain.balanceOf(payer.address);

    const verified = await facilitator.verify(forged, requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBe("invalid_exact_evm_signature");
    const settled = await facilitator.settle(forged, requirements);
    expect(settled.success).toBe(false);
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);

    // The genuine payload is still good.
    expect((await facilitator.verify(payload, requirements)).isValid).toBe(true);
  });

  it("fails verify for an expired authorization", async () => {
    const { chain, facilitator } = rails;
    // The client stamps validBefore = now + maxTimeoutSeconds: sign it "an hour ago".
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() - 3_600_000);
    let signed: Awaited<ReturnType<typeof pay>>;
    try {
      signed = await pay(rails, payerClient(chain, payer.privateKey), "exact", "1000");
    } finally {
      vi.useRealTimers();
    }
    const { payload, requirements } = signed;
    const inner = payload.payload as unknown as Eip3009Payload;
    expect(BigInt(inner.authorization.validBefore)).toBeLessThan(BigInt(Math.floor(Date.now() / 1000)));
    const payerBefore = await chain.balanceOf(payer.address);

    const verified = await facilitator.verify(payload, requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBe("invalid_exact_evm_payload_authorization_valid_before");
    expect((await facilitator.settle(payload, requirements)).success).toBe(false);
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);
  });

  it("fails verify when the payer cannot cover the amount", async () => {
    const { chain, facilitator } = rails;
    const poor = privateKeyToAccount(LOCAL_DEV_ACCOUNTS.otherPayer.privateKey);
    expect(await chain.balanceOf(poor.address)).toBe(0n);
    const { payload, requirements } = await pay(
      rails,
      payerClient(chain, otherPayer.privateKey),
      "exact",
      "1000",
    );
    const verified = await facilitator.verify(payload, requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBe("invalid_exact_evm_insufficient_balance");
  });

  it("is refused by the client's default spend controls unless the asset is allowed", async () => {
    const { chain } = rails;
    const strict = payerClient(chain, payer.privateKey).setSpendControls({});
    await expect(pay(rails, strict, "exact", "1000")).rejects.toThrow(/spend/i);
  });
});
