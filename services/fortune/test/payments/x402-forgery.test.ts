import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { decodePaymentSignatureHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import { describe, expect } from "vitest";
import { FakeX402Rail, signedPaymentHeader } from "../../src/payments/x402-rail.fake.ts";
import { gateOn } from "./gate-harness.ts";

const PAYER_KEY = LOCAL_DEV_ACCOUNTS.payer.privateKey;
const OTHER_KEY = LOCAL_DEV_ACCOUNTS.otherPayer.privateKey;

const pay = (header: string, extra: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "payment-signature": header, ...extra },
});

/** The header with its payload edited. */
function edited(header: string, edit: (payload: Record<string, unknown>) => void): string {
  const decoded = decodePaymentSignatureHeader(header) as unknown as { payload: Record<string, unknown> };
  edit(decoded.payload);
  return encodePaymentSignatureHeader(decoded as never);
}

describe("replays need the payer's valid signature", () => {
  test("an Idempotency-Key replay with a zeroed or another wallet's signature gets 402, not the stored fortune", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app } = await gateOn(db, rail);
    const key = { "idempotency-key": "victim-1" };
    const paid = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
    );
    expect(paid.status).toBe(200);
    const fortune = (await json(paid)).fortune;

    // The claim key is built from public fields: a forger can copy them, not sign them.
    const zeroed = edited(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), (payload) => {
      payload.signature = `0x${"00".repeat(65)}`;
    });
    const forged = await app.request("/api/fortune", pay(zeroed, key));
    expect(forged.status).toBe(402);
    expect((await json(forged)).error).toBe("replay_needs_fresh_authorization");

    const victim = LOCAL_DEV_ACCOUNTS.payer.address;
    const impostor = await signedPaymentHeader(rail, "exact", 1000n, OTHER_KEY, (payload) => {
      (payload.authorization as { from: string }).from = victim;
    });
    const stolen = await app.request("/api/fortune", pay(impostor, key));
    expect(stolen.status).toBe(402);
    expect(JSON.stringify(await json(stolen))).not.toContain(fortune);

    const honest = await app.request(
      "/api/fortune",
      pay(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), key),
    );
    expect(honest.status).toBe(200);
    expect((await json(honest)).fortune).toBe(fortune);
    expect(rail.settlements).toBe(1);
  });
});

describe("one authorisation runs the handler once", () => {
  test("a payload carrying both an EIP-3009 and a Permit2 authorisation is refused before anything runs", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app, ledger } = await gateOn(db, rail);
    const permit2 = decodePaymentSignatureHeader(
      await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY),
    ) as unknown as {
      payload: { permit2Authorization: unknown };
    };
    for (let decoy = 0; decoy < 3; decoy++) {
      const both = edited(await signedPaymentHeader(rail, "exact", 1000n, PAYER_KEY), (payload) => {
        payload.permit2Authorization = permit2.payload.permit2Authorization;
      });
      const res = await app.request("/api/fortune", pay(both));
      expect(res.status).toBe(402);
      expect((await json(res)).error).toBe("invalid_payment_payload");
    }
    expect(rail.verifications).toBe(0);
    expect(await ledger.forRoute("fortune")).toEqual([]);
  });

  test("copies of one authorisation claim one payment, whatever decoy fields they carry", async ({ db }) => {
    const rail = new FakeX402Rail();
    const { app, ledger } = await gateOn(db, rail);
    const header = await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY);
    const premium = (h: string) =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: { "content-type": "application/json", "payment-signature": h },
        body: JSON.stringify({ category: "love" }),
      });
    expect((await premium(header)).status).toBe(200);
    const decoy = edited(header, (payload) => {
      payload.authorization = { nonce: `0x${"12".repeat(32)}` };
    });
    expect((await premium(decoy)).status).toBe(402);
    expect((await premium(header)).status).toBe(402);
    expect(await ledger.forRoute("fortune_premium")).toHaveLength(1);
    expect(rail.settlements).toBe(1);
  });
});

describe("malformed payment headers are 402s, never 500s", () => {
  const wrongTypes: unknown[] = [{}, [], true, 42, null, "x".repeat(300), "0x", -1];

  test("every field of an EIP-3009 and a Permit2 payload, replaced by a value of the wrong type", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app, ledger } = await gateOn(db, rail);
    const cases: [string, string][] = [];
    for (const scheme of ["exact", "upto"] as const) {
      const header = await signedPaymentHeader(rail, scheme, scheme === "exact" ? 1000n : 5000n, PAYER_KEY);
      const decoded = decodePaymentSignatureHeader(header) as unknown as Record<string, unknown>;
      for (const path of leafPaths(decoded)) {
        for (const value of wrongTypes) {
          const copy = structuredClone(decoded);
          setPath(copy, path, value);
          cases.push([`${scheme} ${path.join(".")} = ${JSON.stringify(value)?.slice(0, 20)}`, encode(copy)]);
        }
      }
    }
    const route = (name: string) => (name.startsWith("exact") ? "/api/fortune" : "/api/fortune/premium");
    for (const [name, header] of cases) {
      const res = await app.request(route(name), {
        method: "POST",
        headers: { "content-type": "application/json", "payment-signature": header },
        body: JSON.stringify({ category: "love" }),
      });
      expect([200, 402], name).toContain(res.status);
      const body = await json(res);
      expect(typeof body.error === "string" || typeof body.fortune === "string", name).toBe(true);
      expect(JSON.stringify(body), name).not.toMatch(/viem|at .*\.ts|Error:/);
    }
    expect(cases.length).toBeGreaterThan(150);
    // Only payloads still well-formed (an unchanged amount type, say) may have been paid.
    expect(
      (await ledger.forRoute("fortune")).length + (await ledger.forRoute("fortune_premium")).length,
    ).toBe(rail.settlements);
  });

  test("garbage headers: not base64, not JSON, too large", async ({ db }) => {
    const { app } = await gateOn(db, new FakeX402Rail());
    for (const header of ["%%%", Buffer.from("not json").toString("base64"), "A".repeat(20_000), "e30="]) {
      const res = await app.request("/api/fortune", pay(header));
      expect(res.status).toBe(402);
      expect((await json(res)).error).toBe("invalid_payment_payload");
    }
  });
});

describe("a paid call's retry gets its stored result before any rate limit", () => {
  test("once a category's premium limit is reached, a paid call's Idempotency-Key retry still gets its stored fortune", async ({
    db,
  }) => {
    const rail = new FakeX402Rail();
    const { app } = await gateOn(db, rail);
    const premium = async (key: string) =>
      app.request("/api/fortune/premium", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "idempotency-key": key,
          "payment-signature": await signedPaymentHeader(rail, "upto", 5000n, PAYER_KEY),
        },
        body: JSON.stringify({ category: "health" }),
      });
    const first = await premium("health-1");
    expect(first.status).toBe(200);
    const fortune = (await json(first)).fortune;
    expect((await premium("health-2")).status).toBe(200);
    expect((await premium("health-3")).status).toBe(200);
    expect((await premium("health-4")).status).toBe(429);
    const retry = await premium("health-1");
    expect(retry.status).toBe(200);
    expect((await json(retry)).fortune).toBe(fortune);
    expect(rail.settlements).toBe(3);
  });
});

function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (typeof value !== "object" || value === null) return [prefix];
  return [
    prefix,
    ...Object.entries(value).flatMap(([key, child]) => leafPaths(child, [...prefix, key])),
  ].filter((path) => path.length > 0);
}

function setPath(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node = target as Record<string, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[path.at(-1) as string] = value;
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString("base64");
}
