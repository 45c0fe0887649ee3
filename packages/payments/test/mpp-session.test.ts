import { test } from "@app/testkit";
import { Json } from "ox";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, expect } from "vitest";
import { CHANNEL_RESERVE_ADDRESS, createMppClient, tip20Balance } from "../src/mpp/index.ts";
import { mppTestEnv } from "./mpp-support.ts";

const env = mppTestEnv({
  schema: "mpp_session_test",
  routes: (app, rails) => {
    app.post("/api/fortune/llm", async (c) => {
      const result = await rails.session(c.req.raw);
      if (result.status === 402) return result.challenge;
      return result.withReceipt(Response.json({ fortune: "Metered wisdom." }));
    });
  },
});
const setup = env.setup;
afterAll(env.stop);

test("an unpaid request gets a tempo session challenge", async ({ db }) => {
  const { baseUrl } = await setup(db);
  const res = await fetch(`${baseUrl}/api/fortune/llm`, { method: "POST", body: "{}" });
  expect(res.status).toBe(402);
  expect(res.headers.get("www-authenticate")).toMatch(/^Payment .*method="tempo".*intent="session"/);
});

test("several requests through one channel (with a top-up): the payee gets exactly units × 0.001", async ({
  db,
}) => {
  const { baseUrl, local, payee, payerKey } = await setup(db);
  const payer = privateKeyToAccount(payerKey).address;
  const balances = async () => ({
    payee: await tip20Balance(local.rpcUrl, local.currency, payee),
    payer: await tip20Balance(local.rpcUrl, local.currency, payer),
    reserve: await tip20Balance(local.rpcUrl, local.currency, CHANNEL_RESERVE_ADDRESS),
  });
  const before = await balances();
  const client = createMppClient({ rpcUrl: local.rpcUrl, chainId: local.chainId, privateKey: payerKey });
  const manager = client.session({ maxDeposit: "0.02" });

  const units = 12; // the 11th request needs more than the opening deposit of 0.01: top-up
  const timings: number[] = [];
  for (let i = 1; i <= units; i++) {
    const t0 = performance.now();
    const res = await manager.fetch(`${baseUrl}/api/fortune/llm`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ prompt: `question ${i}` }),
    });
    timings.push(performance.now() - t0);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ fortune: "Metered wisdom." });
    expect(res.receipt?.spent).toBe(String(i * 1000));
  }
  const channelId = manager.channelId;
  expect(channelId).toBeTruthy();
  // While open, the deposits (0.01 + 0.01 top-up) sit in the reserve.
  expect((await balances()).reserve - before.reserve).toBe(20_000n);

  const t0 = performance.now();
  const closed = await manager.close();
  const closeMs = performance.now() - t0;
  expect(closed?.spent).toBe(String(units * 1000));
  console.info(
    `session timings: open ${timings[0]?.toFixed(0)} ms, voucher ${median(timings.slice(1)).toFixed(0)} ms (median), close ${closeMs.toFixed(0)} ms`,
  );

  const after = await balances();
  expect(after.payee - before.payee).toBe(BigInt(units) * 1000n);
  expect(after.reserve).toBe(before.reserve);
  expect(before.payer - after.payer).toBeGreaterThanOrEqual(BigInt(units) * 1000n); // plus open fees

  const rows = await db.query<{ key: string; value: string }>(
    "SELECT key, value FROM mpp_session_test.kv WHERE key = $1",
    [channelId?.toLowerCase()],
  );
  expect(rows).toHaveLength(1);
  const state = Json.parse(rows[0]?.value ?? "null") as { spent: bigint; units: number; finalized: boolean };
  expect(state).toMatchObject({ spent: BigInt(units) * 1000n, units, finalized: true });
});

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}
