import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { x402UptoPermit2ProxyABI } from "@x402/evm";
import { createWalletClient, getAddress, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { X402_UPTO_PERMIT2_PROXY_ADDRESS } from "../src/index.ts";
import { pay, payerClient, type Rails, startRails } from "./support.ts";

const { payer, payee, otherPayer, facilitator: facilitatorAccount } = LOCAL_DEV_ACCOUNTS;

interface UptoPayload {
  signature: `0x${string}`;
  permit2Authorization: {
    from: `0x${string}`;
    permitted: { token: `0x${string}`; amount: string };
    spender: `0x${string}`;
    nonce: string;
    deadline: string;
    witness: { to: `0x${string}`; facilitator: `0x${string}`; validAfter: string };
  };
}

function settleArgs(inner: UptoPayload, amount: bigint) {
  const a = inner.permit2Authorization;
  return [
    {
      permitted: { token: getAddress(a.permitted.token), amount: BigInt(a.permitted.amount) },
      nonce: BigInt(a.nonce),
      deadline: BigInt(a.deadline),
    },
    amount,
    getAddress(a.from),
    {
      to: getAddress(a.witness.to),
      facilitator: getAddress(a.witness.facilitator),
      validAfter: BigInt(a.witness.validAfter),
    },
    inner.signature,
  ] as const;
}

describe("x402 upto (Permit2) through the in-process facilitator", () => {
  let rails: Rails;

  beforeAll(async () => {
    rails = await startRails();
    await rails.chain.fund(payer.address, "10");
    await rails.chain.approvePermit2(payer.privateKey);
  }, 120_000); // may compile cold on a fresh checkout
  afterAll(async () => {
    await rails?.stop();
  });

  it("advertises the facilitator address and permit2 in the requirements", async () => {
    const { payload, requirements } = await pay(
      rails,
      payerClient(rails.chain, payer.privateKey),
      "upto",
      "5000",
    );
    expect(requirements.extra).toMatchObject({
      assetTransferMethod: "permit2",
      facilitatorAddress: facilitatorAccount.address,
    });
    const inner = payload.payload as unknown as UptoPayload;
    expect(getAddress(inner.permit2Authorization.spender)).toBe(X402_UPTO_PERMIT2_PROXY_ADDRESS);
    expect(inner.permit2Authorization.permitted.amount).toBe("5000");
  });

  it("authorised for 5000, settled for 2300: moves exactly 2300", async () => {
    const { chain, server, facilitator } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "upto", "5000");
    const payerBefore = await chain.balanceOf(payer.address);
    const payeeBefore = await chain.balanceOf(payee.address);

    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: true,
      payer: payer.address,
    });
    const settled = await server.settlePayment(payload, requirements, undefined, undefined, {
      amount: "2300",
    });
    expect(settled).toMatchObject({ success: true, amount: "2300", network: chain.network });
    const receipt = await chain.publicClient.getTransactionReceipt({
      hash: settled.transaction as `0x${string}`,
    });
    expect(receipt.status).toBe("success");

    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - 2300n);
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + 2300n);

    // The Permit2 nonce is spent: the same authorisation cannot be settled again.
    const again = await facilitator.settle(payload, { ...requirements, amount: "100" });
    expect(again.success).toBe(false);
    expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + 2300n);
  });

  it("refuses to settle above the permitted amount (facilitator and proxy)", async () => {
    const { chain, server, facilitator } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "upto", "5000");
    const payerBefore = await chain.balanceOf(payer.address);

    const over = await facilitator.settle(payload, { ...requirements, amount: "5001" });
    expect(over.success).toBe(false);
    expect(over.errorReason).toBe("invalid_upto_evm_payload_settlement_exceeds_amount");
    // x402ResourceServer reports it as a failed settlement (it does not throw): callers must check `success`.
    const viaServer = await server.settlePayment(payload, requirements, undefined, undefined, {
      amount: "5001",
    });
    expect(viaServer).toMatchObject({
      success: false,
      errorReason: "invalid_upto_evm_payload_settlement_exceeds_amount",
    });

    // Our proxy enforces it on chain as well, even for the rightful facilitator.
    const inner = payload.payload as unknown as UptoPayload;
    await expect(
      chain.publicClient.simulateContract({
        account: facilitatorAccount.address,
        address: X402_UPTO_PERMIT2_PROXY_ADDRESS,
        abi: x402UptoPermit2ProxyABI,
        functionName: "settle",
        args: settleArgs(inner, 5001n),
      }),
    ).rejects.toThrow(/AmountExceedsPermitted/);
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore);

    // The authorisation is still usable for the full amount.
    const full = await facilitator.settle(payload, requirements);
    expect(full).toMatchObject({ success: true, amount: "5000" });
    expect(await chain.balanceOf(payer.address)).toBe(payerBefore - 5000n);
  });

  it("lets only the facilitator named in the witness settle on chain", async () => {
    const { chain } = rails;
    const { payload } = await pay(rails, payerClient(chain, payer.privateKey), "upto", "5000");
    const inner = payload.payload as unknown as UptoPayload;
    const intruder = createWalletClient({
      account: privateKeyToAccount(otherPayer.privateKey),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    });
    await expect(
      chain.publicClient.simulateContract({
        account: intruder.account,
        address: X402_UPTO_PERMIT2_PROXY_ADDRESS,
        abi: x402UptoPermit2ProxyABI,
        functionName: "settle",
        args: settleArgs(inner, 1000n),
      }),
    ).rejects.toThrow(/UnauthorizedFacilitator/);
  });

  it("fails verify when the permit was signed by another wallet", async () => {
    const { chain, facilitator } = rails;
    const { payload, requirements } = await pay(rails, payerClient(chain, payer.privateKey), "upto", "5000");
    const other = await pay(rails, payerClient(chain, otherPayer.privateKey), "upto", "5000");
    const inner = payload.payload as unknown as UptoPayload;
    const otherInner = other.payload.payload as unknown as UptoPayload;
    // Same authorisation fields as the payer's, but signed by otherPayer over its own message.
    const forged = { ...payload, payload: { ...inner, signature: otherInner.signature } };
    const verified = await facilitator.verify(forged, requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBe("invalid_permit2_signature");
    expect((await facilitator.settle(forged, { ...requirements, amount: "1000" })).success).toBe(false);
  });

  it("fails verify for an expired permit", async () => {
    const { chain, facilitator } = rails;
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() - 3_600_000);
    let signed: Awaited<ReturnType<typeof pay>>;
    try {
      signed = await pay(rails, payerClient(chain, payer.privateKey), "upto", "5000");
    } finally {
      vi.useRealTimers();
    }
    const verified = await facilitator.verify(signed.payload, signed.requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBe("permit2_deadline_expired");
  });

  it("reports a missing Permit2 allowance", async () => {
    const { chain, facilitator } = rails;
    await chain.fund(otherPayer.address, "1");
    const { payload, requirements } = await pay(
      rails,
      payerClient(chain, otherPayer.privateKey),
      "upto",
      "5000",
    );
    const verified = await facilitator.verify(payload, requirements);
    expect(verified.isValid).toBe(false);
    expect(verified.invalidReason).toBe("permit2_allowance_required");
  });
});
