/**
 * Audit of f2ff0f7 (`NativeExactEvmScheme`, `settlement-sender.ts`): reproductions on a real anvil.
 *
 * 1. A verification carried to its settlement skips the simulation (and the gas estimate the
 *    previous viem `writeContract` path made right before sending): a payer whose balance is spent
 *    between verify and settle makes the facilitator broadcast a settlement that reverts, gas paid
 *    by the seller's facilitator key, once per payment the payer can get verified.
 * 2. A settlement left pending is "awaited again, never sent again" only once: the retry deletes
 *    the pending entry and does not put it back when the receipt still does not come, so the next
 *    settle of the very same payload broadcasts a second transaction for the same authorisation;
 *    when mining resumes the first transfers the money and the facilitator answers the payment
 *    failed (the second reverts): money taken, failure reported.
 * 3. The pending entry is keyed on the signature's exact text: the same authorisation with v as
 *    0/1 instead of 27/28 (which the native recovery and the contract both accept) is sent again.
 * 4. A node that answers `eth_sendRawTransactionSync` with its own confirmation timeout (anvil's
 *    wording and code, -32603, captured from anvil 1.7.1) after putting the transaction in its
 *    pool is taken for a refusal: the settlement is reported failed, then mines: money taken,
 *    failure reported.
 * 5. Two processes settling with the same key at once: a nonce refused as taken is read again
 *    only once, so a second collision fails the payment (`nonce too low`, nothing moved), and a
 *    same-nonce transaction with a higher fee quote replaces the other's in the pool (that one is
 *    left `settlement_pending`, never mined).
 *
 * Held up (tests below marked so): a high-s copy of a signature and a payment signed for another
 * token name are refused and send nothing; a send whose connection dropped after the node took it
 * settles once and the nonce count goes on.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { LOCAL_DEV_ACCOUNTS, LOCAL_DEV_MNEMONIC } from "@app/local-chain";
import type { PaymentPayload } from "@x402/core/types";
import { type Hex, toHex } from "viem";
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from "viem/accounts";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLocalFacilitator, type LocalFacilitatorClient } from "../src/index.ts";
import { pay, payerClient, type Rails, startRails } from "./support.ts";

const { payer, payee } = LOCAL_DEV_ACCOUNTS;
// A funded dev account no role uses: its nonce is this file's facilitator's alone.
const SIGNER_KEY = toHex(
  mnemonicToAccount(LOCAL_DEV_MNEMONIC, { addressIndex: 8 }).getHdKey().privateKey as Uint8Array,
);
const SIGNER = privateKeyToAccount(SIGNER_KEY).address;

type Eip3009 = {
  signature: Hex;
  authorization: Record<"from" | "to" | "value" | "validAfter" | "validBefore" | "nonce", string>;
};

/** An HTTP proxy to the node; `sync` answers `eth_sendRawTransactionSync` itself when set. */
async function proxyTo(target: string) {
  const state: { sync?: (body: { id: number; params: unknown[] }) => Promise<unknown> } = {};
  // `sync` may answer "drop": the connection is cut without an answer.
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const parsed = JSON.parse(body) as { id: number; method: string; params: unknown[] };
    if (!Array.isArray(parsed) && parsed.method === "eth_sendRawTransactionSync" && state.sync) {
      const answer = await state.sync(parsed);
      if (answer === "drop") {
        res.socket?.destroy();
        return;
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(answer));
      return;
    }
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
  return {
    url: `http://127.0.0.1:${port}`,
    state,
    close: () => new Promise((r) => server.close(r)),
  };
}

describe("audit: the native EIP-3009 exact path of f2ff0f7", () => {
  let rails: Rails;
  let facilitator: LocalFacilitatorClient;
  const rpc = (method: string, params: unknown[] = []) =>
    rails.chain.publicClient.request({ method: method as never, params: params as never });
  /** Transactions the facilitator's key has sent (mined or in the pool). */
  const sentBySigner = () =>
    rails.chain.publicClient.getTransactionCount({ address: SIGNER, blockTag: "pending" });
  const stall = async () => {
    await rpc("evm_setIntervalMining", [0]);
    await rpc("evm_setAutomine", [false]);
  };
  const resume = async () => {
    await rpc("evm_setAutomine", [true]);
    await rpc("evm_mine");
  };

  beforeAll(async () => {
    rails = await startRails();
    await rails.chain.fund(payer.address, "10");
    facilitator = createLocalFacilitator({
      rpcUrl: rails.anvil.rpcUrl,
      chainId: rails.chain.chainId,
      signerPrivateKey: SIGNER_KEY,
      confirmationTimeoutMs: 1_500,
    });
    // Learn the token's gas budget, the fees and the nonce once.
    const warm = await pay(rails, payerClient(rails.chain, payer.privateKey), "exact", "1000");
    await facilitator.verify(warm.payload, warm.requirements);
    expect((await facilitator.settle(warm.payload, warm.requirements)).success).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await rails?.stop();
  });
  afterEach(async () => {
    await rpc("evm_setAutomine", [true]).catch(() => undefined);
  });

  it("refuses, without broadcasting, a verified payment whose payer spent the balance before it settled (no reverting settlement paid by the seller)", async () => {
    // A payer with exactly one payment's worth, who gets two payments verified (two requests at once).
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    await rails.chain.fund(address, "0.001");
    expect(await rails.chain.balanceOf(address)).toBe(1000n);
    const client = payerClient(rails.chain, key);
    const first = await pay(rails, client, "exact", "1000");
    const second = await pay(rails, client, "exact", "1000");
    expect((await facilitator.verify(first.payload, first.requirements)).isValid).toBe(true);
    expect((await facilitator.verify(second.payload, second.requirements)).isValid).toBe(true);

    expect((await facilitator.settle(first.payload, first.requirements)).success).toBe(true);
    const sentBefore = await sentBySigner();
    const refused = await facilitator.settle(second.payload, second.requirements);
    expect(refused.success).toBe(false);
    // What `@x402/evm` over viem (gas estimated right before the send) answered: nothing broadcast.
    expect(refused.transaction).toBe("");
    expect(await sentBySigner()).toBe(sentBefore);
  });

  it("sends a pending settlement once: a later settle of the same payload waits on it, and reports the payment settled once mined", async () => {
    const { payload, requirements } = await pay(
      rails,
      payerClient(rails.chain, payer.privateKey),
      "exact",
      "1000",
    );
    expect((await facilitator.verify(payload, requirements)).isValid).toBe(true);
    const payeeBefore = await rails.chain.balanceOf(payee.address);
    const sentBefore = await sentBySigner();
    await stall();
    let first: Awaited<ReturnType<LocalFacilitatorClient["settle"]>>;
    let again: Awaited<ReturnType<LocalFacilitatorClient["settle"]>>;
    let sentWhileStalled: number;
    try {
      // The resource server's settle and its one retry (x402ResourceServer.settleWithPendingRetry)...
      first = await facilitator.settle(payload, requirements);
      expect(first).toMatchObject({ success: false, errorReason: "settlement_pending" });
      const retry = await facilitator.settle(payload, requirements);
      expect(retry).toMatchObject({
        success: false,
        errorReason: "settlement_pending",
        transaction: first.transaction,
      });
      // ...and the payer's (or any caller's) next try, mining still stalled.
      again = await facilitator.settle(payload, requirements);
      sentWhileStalled = (await sentBySigner()) - sentBefore;
    } finally {
      await resume();
    }
    const last = await facilitator.settle(payload, requirements);
    expect(await rails.chain.balanceOf(payee.address)).toBe(payeeBefore + 1000n);
    // The payer paid (the first transaction transferred): the facilitator must not call the payment failed.
    expect(last).not.toMatchObject({ success: false, errorReason: "invalid_exact_evm_transaction_failed" });
    // One authorisation, one transaction: the third settle waits on the first instead of sending another.
    expect(again).toMatchObject({ errorReason: "settlement_pending", transaction: first.transaction });
    expect(sentWhileStalled).toBe(1);
  }, 60_000);

  it("does not send a pending settlement again for the same authorisation with v as 0/1 instead of 27/28", async () => {
    const { payload, requirements } = await pay(
      rails,
      payerClient(rails.chain, payer.privateKey),
      "exact",
      "1000",
    );
    const inner = payload.payload as unknown as Eip3009;
    const v = Number.parseInt(inner.signature.slice(130), 16);
    expect(v === 27 || v === 28).toBe(true);
    const sameAuthorization = {
      ...payload,
      payload: { ...inner, signature: `${inner.signature.slice(0, 130)}0${v - 27}` },
    } as PaymentPayload;
    expect((await facilitator.verify(payload, requirements)).isValid).toBe(true);
    const sentBefore = await sentBySigner();
    await stall();
    try {
      const first = await facilitator.settle(payload, requirements);
      expect(first).toMatchObject({ success: false, errorReason: "settlement_pending" });
      await facilitator.settle(sameAuthorization, requirements);
      expect(await sentBySigner()).toBe(sentBefore + 1);
    } finally {
      await resume();
    }
  }, 60_000);

  it("settles every payment when two processes settle with the same key at once (a nonce taken twice is read again until free)", async () => {
    const other = createLocalFacilitator({
      rpcUrl: rails.anvil.rpcUrl,
      chainId: rails.chain.chainId,
      signerPrivateKey: SIGNER_KEY,
      confirmationTimeoutMs: 1_500,
    });
    const client = payerClient(rails.chain, payer.privateKey);
    const payments = await Promise.all(Array.from({ length: 12 }, () => pay(rails, client, "exact", "1000")));
    const settlers = payments.map((_p, i) => (i % 2 === 0 ? facilitator : other));
    const verified = await Promise.all(
      payments.map((p, i) => settlers[i]!.verify(p.payload, p.requirements)),
    );
    expect(verified.every((v) => v.isValid)).toBe(true);
    const payeeBefore = await rails.chain.balanceOf(payee.address);
    const settled = await Promise.all(payments.map((p, i) => settlers[i]!.settle(p.payload, p.requirements)));
    const failures = settled
      .filter((s) => !s.success)
      .map((s) => `${s.errorReason}: ${s.errorMessage ?? ""}`);
    expect(await rails.chain.balanceOf(payee.address)).toBe(
      payeeBefore + 1000n * BigInt(12 - failures.length),
    );
    expect(failures).toEqual([]);
  });

  // What held up.
  it("refuses a high-s copy of a valid signature (native recovery accepts it, the token does not) and sends nothing", async () => {
    const { payload, requirements } = await pay(
      rails,
      payerClient(rails.chain, payer.privateKey),
      "exact",
      "1000",
    );
    const inner = payload.payload as unknown as Eip3009;
    const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
    const r = inner.signature.slice(2, 66);
    const s = BigInt(`0x${inner.signature.slice(66, 130)}`);
    const v = Number.parseInt(inner.signature.slice(130), 16);
    const highS =
      `0x${r}${(N - s).toString(16).padStart(64, "0")}${(v === 27 ? 28 : 27).toString(16)}` as Hex;
    const copy = { ...payload, payload: { ...inner, signature: highS } } as PaymentPayload;
    const sentBefore = await sentBySigner();
    expect((await facilitator.verify(copy, requirements)).isValid).toBe(false);
    expect((await facilitator.settle(copy, requirements)).success).toBe(false);
    expect(await sentBySigner()).toBe(sentBefore);
    // The original still settles.
    expect((await facilitator.settle(payload, requirements)).success).toBe(true);
  });

  it("refuses a payment signed over requirements naming another token name, verified or not, and sends nothing", async () => {
    const renamed = await pay(rails, payerClient(rails.chain, payer.privateKey), "exact", "1000");
    const requirements = {
      ...renamed.requirements,
      extra: { ...renamed.requirements.extra, name: "Not LocalUSD" },
    };
    // Signed for the renamed domain: the native digest agrees, the token does not.
    const [built] = await rails.server.buildPaymentRequirements({
      scheme: "exact",
      network: rails.chain.network,
      payTo: payee.address,
      price: {
        amount: "1000",
        asset: rails.chain.asset.address,
        extra: { name: "Not LocalUSD", version: rails.chain.asset.version },
      },
    });
    const required = await rails.server.createPaymentRequiredResponse([built as never], {
      url: "http://127.0.0.1/test",
    });
    const payload = await payerClient(rails.chain, payer.privateKey).createPaymentPayload(required);
    const sentBefore = await sentBySigner();
    expect(await facilitator.verify(payload, built as never)).toMatchObject({
      isValid: false,
      invalidReason: "invalid_exact_evm_token_name_mismatch",
    });
    expect((await facilitator.settle(payload, built as never)).success).toBe(false);
    expect((await facilitator.settle(renamed.payload, requirements)).success).toBe(false);
    expect(await sentBySigner()).toBe(sentBefore);
  });

  describe("a node answering its own confirmation timeout", () => {
    let proxy: Awaited<ReturnType<typeof proxyTo>>;
    beforeAll(async () => {
      proxy = await proxyTo(rails.anvil.rpcUrl);
    });
    afterAll(async () => {
      await proxy?.close();
    });

    // Held up: an answer lost after the node took the transaction.
    it("settles a payment whose send got no answer (the connection dropped after the node mined it), once", async () => {
      const viaProxy = createLocalFacilitator({
        rpcUrl: proxy.url,
        chainId: rails.chain.chainId,
        signerPrivateKey: SIGNER_KEY,
        confirmationTimeoutMs: 1_500,
      });
      proxy.state.sync = async ({ params }) => {
        await rpc("eth_sendRawTransactionSync", params);
        return "drop";
      };
      const payeeBefore = await rails.chain.balanceOf(payee.address);
      const sentBefore = await sentBySigner();
      try {
        const { payload, requirements } = await pay(
          rails,
          payerClient(rails.chain, payer.privateKey),
          "exact",
          "1000",
        );
        expect((await viaProxy.verify(payload, requirements)).isValid).toBe(true);
        expect(await viaProxy.settle(payload, requirements)).toMatchObject({ success: true });
      } finally {
        proxy.state.sync = undefined;
      }
      // The next payment takes the next nonce.
      const next = await pay(rails, payerClient(rails.chain, payer.privateKey), "exact", "1000");
      expect((await viaProxy.verify(next.payload, next.requirements)).isValid).toBe(true);
      expect(await viaProxy.settle(next.payload, next.requirements)).toMatchObject({ success: true });
      expect(await sentBySigner()).toBe(sentBefore + 2);
      expect(await rails.chain.balanceOf(payee.address)).toBe(payeeBefore + 2000n);
    }, 60_000);

    it("is a pending settlement, never a failed one: the transaction is in the node's pool and mines later", async () => {
      const viaProxy = createLocalFacilitator({
        rpcUrl: proxy.url,
        chainId: rails.chain.chainId,
        signerPrivateKey: SIGNER_KEY,
        confirmationTimeoutMs: 1_500,
      });
      // The node takes the transaction into its pool and gives up waiting for its receipt, as anvil
      // answers after its own 30 s (here at once): {"code":-32603,"message":"Transaction confirmation timeout"}.
      proxy.state.sync = async ({ id, params }) => {
        await rpc("eth_sendRawTransaction", params);
        return { jsonrpc: "2.0", id, error: { code: -32603, message: "Transaction confirmation timeout" } };
      };
      const { payload, requirements } = await pay(
        rails,
        payerClient(rails.chain, payer.privateKey),
        "exact",
        "1000",
      );
      expect((await viaProxy.verify(payload, requirements)).isValid).toBe(true);
      const payeeBefore = await rails.chain.balanceOf(payee.address);
      await stall();
      let settled: Awaited<ReturnType<LocalFacilitatorClient["settle"]>>;
      try {
        settled = await viaProxy.settle(payload, requirements);
      } finally {
        proxy.state.sync = undefined;
        await resume();
      }
      // The money moved...
      expect(await rails.chain.balanceOf(payee.address)).toBe(payeeBefore + 1000n);
      // ...so the facilitator must not have called the settlement failed (the service would refuse the payer).
      expect(settled).toMatchObject({ errorReason: "settlement_pending" });
    }, 60_000);
  });
});
