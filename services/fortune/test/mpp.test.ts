import { createMppClient, tip20Balance } from "@app/payments";
import { json, test } from "@app/testkit";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { challengeOf, type FortuneHarness, PAYEE, spareAccount, startFortune } from "../testing/harness.ts";

describe("MPP: one-shot charges and sessions (request mode and SSE) on the local chain", () => {
  let h: FortuneHarness;
  const key = spareAccount(8);
  const payer = privateKeyToAccount(key).address.toLowerCase();

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_STREAM_VOUCHER_WAIT_SECONDS: "1" });
  });
  afterAll(async () => {
    await h?.stop();
  });

  const client = () => createMppClient({ rpcUrl: h.tempo.rpcUrl, chainId: h.tempo.chainId, privateKey: key });
  const payeeBalance = () => tip20Balance(h.tempo.rpcUrl, h.tempo.currency, PAYEE);
  const post = (body: unknown) => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

  test("the unpaid 402 carries both the x402 and the MPP challenge", async () => {
    const res = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    expect(res.status).toBe(402);
    expect(challengeOf(res).accepts[0]?.scheme).toBe("exact");
    const mpp = res.headers.get("www-authenticate") ?? "";
    expect(mpp).toMatch(/^Payment /);
    expect(mpp).toContain('method="tempo"');
    expect(mpp).toContain('intent="charge"');
  });

  test("the official MPP client pays 0.001 for a fortune; the payee gets exactly that, the ledger has it", async () => {
    const before = await payeeBalance();
    const res = await client().fetch(`${h.url}/api/fortune`, { method: "POST" });
    expect(res.status).toBe(200);
    expect(typeof (await json(res)).fortune).toBe("string");
    expect(res.headers.get("payment-receipt")).toBeTruthy();
    expect((await payeeBalance()) - before).toBe(1000n);
    const [record] = (await h.ledger.forRoute("fortune")).filter((p) => p.rail === "mpp");
    expect(record).toMatchObject({ scheme: "charge", state: "settled", payer, settledAtomic: 1000 });
    expect(record?.reference).toMatch(/^0x[0-9a-f]{64}$/);
  });

  test("a charge still works after the chain has sat idle (its blocks keep time with the clock)", async () => {
    await new Promise((resolve) => setTimeout(resolve, 8_000));
    const res = await client().fetch(`${h.url}/api/fortune`, { method: "POST" });
    expect(res.status).toBe(200);
  });

  test("garbage MPP credentials get a 402 with a reason on every MPP route, never a 500", async () => {
    for (const path of ["/api/fortune", "/api/fortune/dynamic", "/api/fortune/llm", "/api/fortune/stream"]) {
      for (const credential of [
        "Payment",
        "Payment !!!",
        `Payment ${Buffer.from("{}").toString("base64url")}`,
      ]) {
        const res = await fetch(`${h.url}${path}`, {
          ...post(path.endsWith("dynamic") ? { category: "love" } : { prompt: "hi" }),
          headers: { "content-type": "application/json", authorization: credential },
        });
        expect([400, 402], `${path} ${credential}`).toContain(res.status);
      }
    }
  });

  test("an MPP credential works once: presenting it again is refused", async () => {
    const probe = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    const credential = await client().createCredential(probe);
    const first = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { authorization: credential },
    });
    expect(first.status).toBe(200);
    const again = await fetch(`${h.url}/api/fortune`, {
      method: "POST",
      headers: { authorization: credential },
    });
    expect(again.status).toBe(402);
    expect(challengeOf(again).error).toMatch(/^mpp_/);
  });

  test("dynamic by MPP: priced from the body; a credential for another route is refused", async () => {
    const before = await payeeBalance();
    const res = await client().fetch(
      `${h.url}/api/fortune/dynamic`,
      post({ category: "career", depth: "comprehensive" }),
    );
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ depth: "comprehensive", price: "0.05" });
    expect((await payeeBalance()) - before).toBe(50_000n);

    const probe = await fetch(`${h.url}/api/fortune`, { method: "POST" });
    const credential = await client().createCredential(probe);
    const elsewhere = await fetch(`${h.url}/api/fortune/dynamic`, {
      ...post({ category: "career", depth: "brief" }),
      headers: { "content-type": "application/json", authorization: credential },
    });
    expect(elsewhere.status).toBe(402);
  });

  test("llm: a session bills 0.001 per request; closing pays the payee exactly that", async () => {
    const unpaid = await fetch(`${h.url}/api/fortune/llm`, post({ prompt: "Will it rain?" }));
    expect(unpaid.status).toBe(402);
    expect(unpaid.headers.get("www-authenticate")).toContain('intent="session"');
    expect((await fetch(`${h.url}/api/fortune/llm`, post({ prompt: "" }))).status).toBe(400);

    const before = await payeeBalance();
    const session = client().session({ maxDeposit: "0.01" });
    for (const prompt of ["one", "two", "three"]) {
      const res = await session.fetch(`${h.url}/api/fortune/llm`, post({ prompt }));
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({ prompt, charged: "0.001" });
    }
    await session.close();
    expect((await payeeBalance()) - before).toBe(3000n);
    const rows = await h.ledger.forRoute("fortune_llm");
    expect(rows).toHaveLength(3);
    // The channel's vouchers (payment signatures) are kept sealed, never in clear.
    const stored = await h.db.query<{ value: string }>("SELECT value FROM fortune.mpp_store");
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.every((row) => row.value.startsWith("v1.") && !row.value.includes("signature"))).toBe(true);
    expect(rows.every((row) => row.payer === payer && row.settledAtomic === 1000)).toBe(true);
  });

  test("stream: every token is charged 0.0001 before it is sent; closing pays exactly tokens × 0.0001", async () => {
    const before = await payeeBalance();
    const session = client().session({ maxDeposit: "0.05" });
    const stream = await session.sse(
      `${h.url}/api/fortune/stream`,
      post({ prompt: "Tell me about tomorrow" }),
    );
    const tokens: string[] = [];
    for await (const data of stream) tokens.push(JSON.parse(data).token);
    expect(tokens.length).toBeGreaterThan(5);
    await session.close();
    expect((await payeeBalance()) - before).toBe(BigInt(tokens.length) * 100n);
  });

  test("stream: when the session's funds run out the stream stops, and only delivered tokens are paid", async () => {
    const before = await payeeBalance();
    const session = client().session({ maxDeposit: "0.0005" });
    const stream = await session.sse(`${h.url}/api/fortune/stream`, post({ prompt: "A long story please" }));
    const tokens: string[] = [];
    await expect(
      (async () => {
        for await (const data of stream) tokens.push(JSON.parse(data).token);
      })(),
    ).rejects.toThrow(/maxDeposit|deposit/i);
    expect(tokens).toHaveLength(5);
    await session.close();
    expect((await payeeBalance()) - before).toBe(500n);
  });

  test("stream: a client that stops paying does not hold the stream: it ends once no voucher came in time", async () => {
    // The official client, except that its vouchers never reach the server: it keeps reading and never pays.
    const withholdVouchers: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      const isVoucher =
        init?.method === "POST" && !init.body && /^Payment /.test(headers.get("authorization") ?? "");
      return isVoucher ? Promise.resolve(new Response(null, { status: 204 })) : fetch(input, init);
    };
    const stingy = createMppClient({
      rpcUrl: h.tempo.rpcUrl,
      chainId: h.tempo.chainId,
      privateKey: key,
      fetch: withholdVouchers,
    });
    const session = stingy.session({ maxDeposit: "0.05" });
    const stream = await session.sse(`${h.url}/api/fortune/stream`, post({ prompt: "Keep going" }));
    const tokens: string[] = [];
    for await (const data of stream) tokens.push(JSON.parse(data).token);
    // The stream ended by itself, with the tokens the opening voucher paid for: billed, not yet settled.
    const rows = await h.ledger.forRoute("fortune_stream");
    const channelId = session.channelId?.toLowerCase();
    expect(
      rows.filter((row) => row.reference === channelId).map((row) => [row.state, row.authorizedAtomic]),
    ).toEqual([["accrued", tokens.length * 100]]);
  });
});
