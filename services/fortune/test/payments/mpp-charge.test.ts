import { createMppClient, tip20Balance } from "@app/payments";
import { json, test } from "@app/testkit";
import { Credential } from "mppx";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type FortuneHarness, PAYEE, spareAccount, startFortune } from "../../testing/harness.ts";

describe("MPP charges: idempotency before the charge, the payer from what was verified", () => {
  let h: FortuneHarness;
  const payerKey = spareAccount(8);
  const victimKey = spareAccount(7);
  const address = (key: Hex) => privateKeyToAccount(key).address.toLowerCase();

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const client = (key: Hex) =>
    createMppClient({ rpcUrl: h.tempo.rpcUrl, chainId: h.tempo.chainId, privateKey: key });
  const payeeBalance = () => tip20Balance(h.tempo.rpcUrl, h.tempo.currency, PAYEE);
  const mppRows = async () => (await h.ledger.forRoute("fortune")).filter((p) => p.rail === "mpp");

  /** A fresh credential for /api/fortune signed by `key`, optionally claiming another `source`. */
  async function credentialFor(key: Hex, claimedSource?: string): Promise<string> {
    const probe = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    const serialized = await client(key).createCredential(probe);
    if (!claimedSource) return serialized;
    const credential = Credential.deserialize(serialized);
    return Credential.serialize({ ...credential, source: claimedSource });
  }

  const payWith = (credential: string, idempotencyKey?: string) =>
    fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: {
        authorization: credential,
        ...(idempotencyKey ? { "idempotency-key": idempotencyKey } : {}),
      },
    });

  test("a retry under the same Idempotency-Key gets the stored fortune, and its new credential is not charged", async () => {
    const before = await payeeBalance();
    const rowsBefore = (await mppRows()).length;
    const first = await payWith(await credentialFor(payerKey), "mpp-retry-1");
    expect(first.status).toBe(200);
    const fortune = (await json(first)).fortune;

    const retryCredential = await credentialFor(payerKey);
    const retry = await payWith(retryCredential, "mpp-retry-1");
    expect(retry.status).toBe(200);
    expect((await json(retry)).fortune).toBe(fortune);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect((await payeeBalance()) - before).toBe(1000n);
    expect((await mppRows()).length).toBe(rowsBefore + 1);

    // The replay did not spend the retry's credential: it still pays for one new fortune.
    const spent = await payWith(retryCredential);
    expect(spent.status).toBe(200);
    expect((await payeeBalance()) - before).toBe(2000n);
  });

  test("the ledger names the wallet that signed, whatever the credential's source claims", async () => {
    const res = await payWith(
      await credentialFor(payerKey, `did:pkh:eip155:${h.tempo.chainId}:${address(victimKey)}`),
    );
    expect(res.status).toBe(200);
    const [latest] = await mppRows();
    expect(latest?.payer).toBe(address(payerKey));
  });

  test("a claimed source does not reach another payer's stored response", async () => {
    const victim = await payWith(await credentialFor(victimKey), "shared-key-1");
    expect(victim.status).toBe(200);
    const victimFortune = (await json(victim)).fortune;

    const claimed = `did:pkh:eip155:${h.tempo.chainId}:${address(victimKey)}`;
    const attacker = await payWith(await credentialFor(payerKey, claimed), "shared-key-1");
    expect(attacker.status).toBe(200);
    expect(attacker.headers.get("idempotent-replayed")).toBeNull();
    const rows = (await mppRows()).filter((row) => row.idempotencyKey === "shared-key-1");
    expect(rows.map((row) => row.payer).sort()).toEqual([address(payerKey), address(victimKey)].sort());
    expect(typeof victimFortune).toBe("string");
  });
});
