import { test } from "@app/testkit";
import { Challenge, Receipt } from "mppx";
import { afterAll, expect } from "vitest";
import { createMppClient, tip20Balance } from "../src/mpp/index.ts";
import { mppTestEnv } from "./mpp-support.ts";

const env = mppTestEnv({
  schema: "mpp_charge_test",
  routes: (app, rails) => {
    const paid = async (request: Request, amount: string): Promise<Response> => {
      if (!rails.hasCredential(request)) {
        // A combined 402: MPP's WWW-Authenticate next to (in the service) x402's PAYMENT-REQUIRED.
        const wwwAuthenticate = await rails.chargeChallenge(request, amount);
        return new Response(null, { status: 402, headers: { "WWW-Authenticate": wwwAuthenticate } });
      }
      const result = await rails.charge(request, amount);
      if (result.status === 402) return result.challenge;
      return result.withReceipt(Response.json({ fortune: "Paid in full.", amount }));
    };
    app.get("/api/fortune", (c) => paid(c.req.raw, "0.001"));
    app.get("/api/fortune/dynamic", (c) => paid(c.req.raw, c.req.query("price") ?? "0.002"));
    app.get("/api/other", (c) => paid(c.req.raw, "0.001"));
  },
});
const setup = env.setup;
afterAll(env.stop);

test("an unpaid request gets 402 with a tempo charge challenge in our currency", async ({ db }) => {
  const { baseUrl, local, payee } = await setup(db);
  const res = await fetch(`${baseUrl}/api/fortune`);
  expect(res.status).toBe(402);
  const header = res.headers.get("www-authenticate") ?? "";
  expect(header).toMatch(/^Payment /);
  const challenge = Challenge.deserialize(header);
  expect(challenge.method).toBe("tempo");
  expect(challenge.intent).toBe("charge");
  const request = challenge.request as { amount: string; currency: string; recipient: string };
  expect(request.amount).toBe("1000");
  expect(request.currency.toLowerCase()).toBe(local.currency.toLowerCase());
  expect(request.recipient.toLowerCase()).toBe(payee.toLowerCase());
});

test("a paid request gets 200 and a receipt; the payee gains exactly 0.001", async ({ db }) => {
  const { baseUrl, local, payee, payerKey } = await setup(db);
  const client = createMppClient({ rpcUrl: local.rpcUrl, chainId: local.chainId, privateKey: payerKey });
  const before = await tip20Balance(local.rpcUrl, local.currency, payee);
  const res = await client.fetch(`${baseUrl}/api/fortune`);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ fortune: "Paid in full." });
  const receipt = Receipt.fromResponse(res);
  expect(receipt.status).toBe("success");
  expect(receipt.method).toBe("tempo");
  expect(await tip20Balance(local.rpcUrl, local.currency, payee)).toBe(before + 1000n);
});

test("a credential is accepted once: replaying it is refused", async ({ db }) => {
  const { baseUrl, local, payee, payerKey } = await setup(db);
  const client = createMppClient({ rpcUrl: local.rpcUrl, chainId: local.chainId, privateKey: payerKey });
  const credential = await client.createCredential(await fetch(`${baseUrl}/api/fortune`));
  const before = await tip20Balance(local.rpcUrl, local.currency, payee);

  const first = await fetch(`${baseUrl}/api/fortune`, { headers: { Authorization: credential } });
  expect(first.status).toBe(200);
  expect(first.headers.get("payment-receipt")).toBeTruthy();
  const replay = await fetch(`${baseUrl}/api/fortune`, { headers: { Authorization: credential } });
  expect(replay.status).toBe(402);
  expect(((await replay.json()) as { detail: string }).detail).toMatch(/already been used/);
  expect(replay.headers.get("payment-receipt")).toBeNull();
  expect(await tip20Balance(local.rpcUrl, local.currency, payee)).toBe(before + 1000n);
});

test("a credential for another amount or another route is refused", async ({ db }) => {
  const { baseUrl, local, payee, payerKey } = await setup(db);
  const client = createMppClient({ rpcUrl: local.rpcUrl, chainId: local.chainId, privateKey: payerKey });
  const before = await tip20Balance(local.rpcUrl, local.currency, payee);

  const cheaper = await client.createCredential(await fetch(`${baseUrl}/api/fortune/dynamic?price=0.0005`));
  const wrongAmount = await fetch(`${baseUrl}/api/fortune/dynamic?price=0.002`, {
    headers: { Authorization: cheaper },
  });
  expect(wrongAmount.status).toBe(402);
  expect(((await wrongAmount.json()) as { detail: string }).detail).toMatch(/amount/);

  const otherRoute = await client.createCredential(await fetch(`${baseUrl}/api/other`));
  const wrongRoute = await fetch(`${baseUrl}/api/fortune`, { headers: { Authorization: otherRoute } });
  expect(wrongRoute.status).toBe(402);
  expect(((await wrongRoute.json()) as { detail: string }).detail).toMatch(/opaque/);

  expect(await tip20Balance(local.rpcUrl, local.currency, payee)).toBe(before);
});
