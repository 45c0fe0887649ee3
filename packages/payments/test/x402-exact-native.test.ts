/**
 * The local facilitator's own EIP-3009 `exact` path: the payer's signature recovered natively,
 * once per payment; a verification carried to the settlement of that very payment only; one
 * JSON-RPC call to verify and one to settle. Forged, tampered and replayed payloads still move
 * nothing and send no transaction.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LOCAL_DEV_ACCOUNTS, LOCAL_DEV_MNEMONIC } from "@app/local-chain";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { authorizationTypes } from "@x402/evm";
import { toHex } from "viem";
import { mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as signatures from "../src/crypto/signatures.ts";
import { createLocalFacilitator, type LocalFacilitatorClient } from "../src/index.ts";
import { pay, payerClient, type Rails, startRails } from "./support.ts";

vi.mock(import("../src/crypto/signatures.ts"), async (importOriginal) => {
  const actual = await importOriginal();
  return { ...actual, recoverSigner: vi.fn(actual.recoverSigner) };
});

const { payer, payee, otherPayer } = LOCAL_DEV_ACCOUNTS;
// A signer of its own (a funded dev account no role uses): its nonce is this facilitator's alone.
const SIGNER_KEY = toHex(
  mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 8 }).getHdKey().privateKey as Uint8Array,
);

type Eip3009 = {
  signature: `0x${string}`;
  authorization: Record<"from" | "to" | "value" | "validAfter" | "validBefore" | "nonce", string>;
};

/** An HTTP proxy to the node that counts JSON-RPC calls by method. */
async function countingProxy(target: string) {
  const calls: string[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const parsed = JSON.parse(body) as { method: string } | { method: string }[];
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) calls.push(call.method);
    const reply = await fetch(target, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    res.writeHead(reply.status, { "content-type": "application/json" });
    res.end(await reply.text());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, calls, close: () => new Promise((r) => server.close(r)) };
}

describe("x402 exact (EIP-3009) on the local facilitator's native path", () => {
  let rails: Rails;
  let proxy: Awaited<ReturnType<typeof countingProxy>>;
  let facilitator: LocalFacilitatorClient;
  const signerAddress = privateKeyToAccount(SIGNER_KEY).address;
  const sentBySigner = () => rails.chain.publicClient.getTransactionCount({ address: signerAddress });
  const signed = (amount = "1000") => pay(rails, payerClient(rails.chain, payer.privateKey), "exact", amount);
  const recoveries = () => vi.mocked(signatures.recoverSigner).mock.calls.length;

  beforeAll(async () => {
    rails = await startRails();
    await rails.chain.fund(payer.address, "10");
    proxy = await countingProxy(rails.anvil.rpcUrl);
    facilitator = createLocalFacilitator({
      rpcUrl: proxy.url,
      chainId: rails.chain.chainId,
      signerPrivateKey: SIGNER_KEY,
    });
  }, 120_000);
  afterAll(async () => {
    await proxy?.close();
    await rails?.stop();
  });
  beforeEach(() => {
    vi.mocked(signatures.recoverSigner).mockClear();
  });

  it("recovers the payer's signature natively, once for a verify and its settle", async () => {
    const { payload, requirements } = await signed();
    const payeeBefore = await rails.chain.balanceOf(payee.address);
    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: true,
      payer: payer.address,
    });
    expect(recoveries()).toBe(1);
    expect(await facilitator.settle(payload, requirements)).toMatchObject({
      success: true,
      payer: payer.address,
    });
    expect(recoveries()).toBe(1);
    expect(await rails.chain.balanceOf(payee.address)).toBe(payeeBefore + 1000n);
  });

  it("makes one JSON-RPC call to verify a payment, and two to settle it: the simulation in the send's turn, and the send", async () => {
    const payments = [await signed(), await signed()];
    // The first payment learns what is reused: the token's code and gas, fees, the signer's nonce.
    const [first, second] = payments as [(typeof payments)[0], (typeof payments)[0]];
    await facilitator.verify(first.payload, first.requirements);
    expect((await facilitator.settle(first.payload, first.requirements)).success).toBe(true);
    proxy.calls.length = 0;
    expect((await facilitator.verify(second.payload, second.requirements)).isValid).toBe(true);
    expect(proxy.calls).toEqual(["eth_call"]);
    proxy.calls.length = 0;
    expect((await facilitator.settle(second.payload, second.requirements)).success).toBe(true);
    // The fee quote is reused for a second: a slow machine may take one more (block and tip).
    expect(
      proxy.calls.filter(
        (method) => method !== "eth_getBlockByNumber" && method !== "eth_maxPriorityFeePerGas",
      ),
    ).toEqual(["eth_call", "eth_sendRawTransactionSync"]);
  });

  it("settles nothing it did not verify: a forged payload, never verified, sends no transaction", async () => {
    const { payload, requirements } = await signed();
    const inner = payload.payload as unknown as Eip3009;
    const a = inner.authorization;
    // otherPayer signs the payer's authorisation.
    const forgedSignature = await privateKeyToAccount(otherPayer.privateKey).signTypedData({
      domain: {
        name: rails.chain.asset.name,
        version: rails.chain.asset.version,
        chainId: rails.chain.chainId,
        verifyingContract: rails.chain.asset.address,
      },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: a.from as `0x${string}`,
        to: a.to as `0x${string}`,
        value: BigInt(a.value),
        validAfter: BigInt(a.validAfter),
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce as `0x${string}`,
      },
    });
    const forged = { ...payload, payload: { ...inner, signature: forgedSignature } } as PaymentPayload;
    const payerBefore = await rails.chain.balanceOf(payer.address);
    const sentBefore = await sentBySigner();
    expect(await facilitator.settle(forged, requirements)).toMatchObject({
      success: false,
      errorReason: "invalid_exact_evm_signature",
      transaction: "",
    });
    expect(await sentBySigner()).toBe(sentBefore);
    expect(await rails.chain.balanceOf(payer.address)).toBe(payerBefore);
  });

  it("carries a verification only to the very payment verified: tampered copies are verified anew and refused", async () => {
    const { payload, requirements } = await signed();
    expect((await facilitator.verify(payload, requirements)).isValid).toBe(true);
    const inner = payload.payload as unknown as Eip3009;
    const sentBefore = await sentBySigner();
    const payerBefore = await rails.chain.balanceOf(payer.address);

    // More money, to someone else, or against other requirements: none is the payment verified.
    const raised = {
      ...payload,
      payload: { ...inner, authorization: { ...inner.authorization, value: "5000" } },
    };
    const redirected = {
      ...payload,
      payload: { ...inner, authorization: { ...inner.authorization, to: otherPayer.address } },
    };
    const otherTerms: PaymentRequirements = { ...requirements, amount: "5000" };
    const elsewhere: PaymentRequirements = { ...requirements, payTo: otherPayer.address };
    const refusals = [
      await facilitator.settle(raised as PaymentPayload, { ...requirements, amount: "5000" }),
      await facilitator.settle(redirected as PaymentPayload, { ...requirements, payTo: otherPayer.address }),
      await facilitator.settle(payload, otherTerms),
      await facilitator.settle(payload, elsewhere),
    ];
    expect(refusals.map((r) => [r.success, r.errorReason])).toEqual([
      [false, "invalid_exact_evm_signature"],
      [false, "invalid_exact_evm_signature"],
      [false, "invalid_exact_evm_payload_authorization_value_mismatch"],
      [false, "invalid_exact_evm_recipient_mismatch"],
    ]);
    expect(await sentBySigner()).toBe(sentBefore);
    expect(await rails.chain.balanceOf(payer.address)).toBe(payerBefore);

    // The payment verified still settles, once; a second settle is verified anew and sends nothing.
    expect((await facilitator.settle(payload, requirements)).success).toBe(true);
    const sentAfter = await sentBySigner();
    expect(await facilitator.settle(payload, requirements)).toMatchObject({ success: false });
    expect(await sentBySigner()).toBe(sentAfter);
    expect(await rails.chain.balanceOf(payer.address)).toBe(payerBefore - 1000n);
  });

  it("checks the time window again when it settles a verified payment", async () => {
    const { payload, requirements } = await signed();
    expect((await facilitator.verify(payload, requirements)).isValid).toBe(true);
    const validBefore = Number((payload.payload as unknown as Eip3009).authorization.validBefore);
    const sentBefore = await sentBySigner();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(validBefore * 1000);
    try {
      expect(await facilitator.settle(payload, requirements)).toMatchObject({
        success: false,
        errorReason: "invalid_exact_evm_payload_authorization_valid_before",
      });
    } finally {
      vi.useRealTimers();
    }
    expect(await sentBySigner()).toBe(sentBefore);
  });

  it("takes turns with another process settling with the same key: a nonce the node refuses is read again", async () => {
    const other = createLocalFacilitator({
      rpcUrl: rails.anvil.rpcUrl,
      chainId: rails.chain.chainId,
      signerPrivateKey: SIGNER_KEY,
    });
    const payeeBefore = await rails.chain.balanceOf(payee.address);
    for (const settler of [facilitator, other, facilitator, other]) {
      const { payload, requirements } = await signed();
      expect((await settler.verify(payload, requirements)).isValid).toBe(true);
      expect(await settler.settle(payload, requirements)).toMatchObject({ success: true });
    }
    expect(await rails.chain.balanceOf(payee.address)).toBe(payeeBefore + 4000n);
  });

  it("refuses an authorisation already spent, before settling, with its reason", async () => {
    const { payload, requirements } = await signed();
    expect((await rails.facilitator.settle(payload, requirements)).success).toBe(true);
    expect(await facilitator.verify(payload, requirements)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_nonce_already_used",
    });
  });
});
