/**
 * AUDIT (real chain): the MPP charge flow scopes an Idempotency-Key by the credential's payer, taken
 * for a push credential (`payload.type: "hash"`) from the on-chain transfer that hash names. A
 * transaction hash is public: it proves nothing about who presents it. An attacker who knows a
 * victim's Idempotency-Key (a log line, a predictable key) presents the victim's payment hash —
 * read from the chain — with that key and gets the victim's stored response, paying nothing.
 * The README says the payer is "proven by a signature, never a claimed address".
 */
import { createMppClient } from "@app/payments";
import { json, test } from "@app/testkit";
import { Credential } from "mppx";
import type { Hex } from "viem";
import { afterAll, describe, expect } from "vitest";
import { type FortuneHarness, spareAccount, startFortune } from "../../testing/harness.ts";

describe("AUDIT: an MPP idempotency replay needs the payer's signature, not a public transaction hash", () => {
  let h: FortuneHarness;
  const victimKey = spareAccount(7);
  const attackerKey = spareAccount(8);

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const client = (key: Hex) =>
    createMppClient({ rpcUrl: h.tempo.rpcUrl, chainId: h.tempo.chainId, privateKey: key });
  const probe = () => fetch(`${h.url}/api/fortune`, { method: "POST" });
  const payWith = (credential: string, idempotencyKey: string) =>
    fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { authorization: credential, "idempotency-key": idempotencyKey },
    });

  test("the victim's transaction hash and key do not return the victim's fortune to someone else", async () => {
    const victim = await payWith(await client(victimKey).createCredential(await probe()), "order-1001");
    expect(victim.status).toBe(200);
    const victimFortune = (await json(victim)).fortune;
    const [row] = (await h.ledger.forRoute("fortune")).filter((p) => p.idempotencyKey === "order-1001");
    const victimTx = row?.reference as Hex;
    expect(victimTx).toMatch(/^0x[0-9a-f]{64}$/i);

    // The attacker answers a fresh challenge with the victim's public transaction hash.
    const own = Credential.deserialize(await client(attackerKey).createCredential(await probe()));
    const forged = Credential.serialize({
      ...own,
      source: undefined,
      payload: { type: "hash", hash: victimTx },
    });
    const stolen = await payWith(forged, "order-1001");
    const body = await json(stolen);
    expect(body.fortune, "the victim's fortune was served to the attacker").not.toBe(victimFortune);
    expect(stolen.status).toBe(402);
  });
});
