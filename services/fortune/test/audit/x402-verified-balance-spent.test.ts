/**
 * AUDIT of f2ff0f7 (real chain, real in-process facilitator): a payment verified by the native
 * EIP-3009 path is settled without a second simulation or gas estimate (the remembered
 * verification carries its gas). A payer with one payment's worth of LocalUSD fires several paid
 * requests at once, each with its own authorisation: each is verified against the same balance,
 * and each settlement is broadcast; all but one revert on chain, their gas paid by the service's
 * facilitator key. Before f2ff0f7 the settlement went through viem's `writeContract`, whose gas
 * estimate right before the send refused a transfer the balance no longer covered: nothing sent.
 *
 * What held up: the payer is served once and charged once; the reverted settlements are recorded
 * failed and their fortunes withheld (402 settlement_failed).
 */
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { challengeOf, type FortuneHarness, PAYEE, startFortune } from "../../testing/harness.ts";

const FACILITATOR = LOCAL_DEV_ACCOUNTS.facilitator.address;

describe("AUDIT: several payments verified against one balance, settled without a second check", () => {
  let h: FortuneHarness;
  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
  });
  afterAll(async () => {
    await h?.stop();
  });

  test("the payer is served once and charged once, and the facilitator broadcasts no settlement the balance no longer covers", async () => {
    const key = generatePrivateKey();
    const payer = privateKeyToAccount(key).address;
    await h.chain.fund(payer, "0.001"); // one fortune's worth (1000 atomic units)
    expect(await h.chain.balanceOf(payer)).toBe(1000n);
    const probe = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    const required = challengeOf(probe);
    const client = h.x402Client(key);
    const headers = await Promise.all(
      [1, 2, 3, 4].map(async () => encodePaymentSignatureHeader(await client.createPaymentPayload(required))),
    );
    const payeeBefore = await h.chain.balanceOf(PAYEE);
    const sentBefore = await h.chain.publicClient.getTransactionCount({ address: FACILITATOR });

    const answers = await Promise.all(
      headers.map((header) =>
        fetch(`${h.url}/api/fortune`, { method: "POST", headers: { "payment-signature": header } }),
      ),
    );
    const statuses = answers.map((a) => a.status);
    const bodies = await Promise.all(answers.map((a) => json(a)));

    // Held up: one fortune, one payment, the rest refused and recorded failed.
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 1000n);
    expect(await h.chain.balanceOf(payer)).toBe(0n);
    const refused = bodies.filter((_b, i) => statuses[i] !== 200);
    for (const body of refused) expect(body.fortune).toBeUndefined();
    const rows = await h.ledger.forRoute("fortune");
    const mine = rows.filter((row) => row.payer?.toLowerCase() === payer.toLowerCase());
    expect(mine.filter((row) => row.state === "settled")).toHaveLength(1);

    // The finding: every payment verified against the same balance was broadcast; all but one
    // reverted, each paid for in gas by the facilitator's key.
    const sent = (await h.chain.publicClient.getTransactionCount({ address: FACILITATOR })) - sentBefore;
    expect({ sent, refusals: refused.map((b) => b.error) }).toEqual({
      sent: 1,
      refusals: refused.map((b) => b.error),
    });
  });
});
