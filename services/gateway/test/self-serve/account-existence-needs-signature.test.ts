import { json, test } from "@app/testkit";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { encodeSIWxHeader, parseSIWxHeader } from "@x402/extensions/sign-in-with-x";
import { getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type SelfServeGateway, startSelfServeGateway } from "../../testing/self-serve.ts";

/**
 * Whether a wallet owns a gateway account is told only to that wallet: a request that names a
 * wallet without its signature gets the same answer whether the wallet owns an account or not,
 * on every route that looks an account up by its wallet (the SIWX key routes, and the credit a
 * payment buys for its payer's account). The signature is checked before the account is looked up.
 */
describe("a wallet's account is not disclosed without the wallet's signature", () => {
  let h: SelfServeGateway;
  const owner = generatePrivateKey();
  const ownerAddress = privateKeyToAccount(owner).address;
  const stranger = privateKeyToAccount(generatePrivateKey()).address;
  const forger = generatePrivateKey();
  let keyId = "";

  test.beforeAll(async ({ db }) => {
    h = await startSelfServeGateway(db);
    keyId = (await h.openAccount(owner)).key.id;
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** `path` asked with a sign-in the forger signed for it, claiming to be `wallet`. */
  const forgedSignIn = async (wallet: string, path: string, init: RequestInit) => {
    const signed = parseSIWxHeader(await h.signIn(forger as Hex, path, init));
    return fetch(`${h.url}${path}`, {
      ...init,
      headers: {
        ...(init.headers as Record<string, string>),
        "sign-in-with-x": encodeSIWxHeader({ ...signed, address: getAddress(wallet) }),
      },
    });
  };
  const answerOf = async (res: Response) => ({ status: res.status, error: (await json(res)).error });

  const keyRoutes = () => [
    { name: "POST /v1/keys", path: "/v1/keys", init: { method: "POST" } },
    { name: "GET /v1/keys", path: "/v1/keys", init: { method: "GET" } },
    { name: "DELETE /v1/keys/{id}", path: `/v1/keys/${keyId}`, init: { method: "DELETE" } },
    {
      name: "PATCH /v1/keys/{id}",
      path: `/v1/keys/${keyId}`,
      init: {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ allow: ["markets"] }),
      },
    },
  ];

  test("the key routes refuse a forged sign-in alike for a wallet with an account and one without", async () => {
    for (const { name, path, init } of keyRoutes()) {
      const forOwner = await answerOf(await forgedSignIn(ownerAddress, path, init));
      const forStranger = await answerOf(await forgedSignIn(stranger, path, init));
      expect(forOwner, name).toEqual({ status: 402, error: "siwx_invalid_signature" });
      expect(forStranger, name).toEqual(forOwner);
    }
    const [policy] = await h.db.query("SELECT 1 FROM gateway.key_policies WHERE key_id = $1", [keyId]);
    expect(policy).toBeUndefined();
  });

  test("an x402 payment signed by another wallet than the payer it names is refused alike, before any account is looked up", async () => {
    const buy = (headers: Record<string, string> = {}) => ({
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ amount: "0.50" }),
    });
    const challenge = await fetch(`${h.url}/v1/credits`, buy());
    const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required") ?? "");
    const signed = await h.x402Client(forger).createPaymentPayload(required);
    /** The forger's signed payment, its authorisation rewritten to name `wallet` as the payer. */
    const naming = (wallet: string): PaymentPayload => {
      const inner = signed.payload as { authorization: Record<string, string> };
      return { ...signed, payload: { ...inner, authorization: { ...inner.authorization, from: wallet } } };
    };
    const pay = (wallet: string) =>
      fetch(
        `${h.url}/v1/credits`,
        buy({ "payment-signature": encodePaymentSignatureHeader(naming(wallet)) }),
      );

    const forOwner = await answerOf(await pay(ownerAddress));
    const forStranger = await answerOf(await pay(stranger));
    expect(forOwner.status).toBe(402);
    expect(forStranger).toEqual(forOwner);
    const claimed = await h.db.query("SELECT 1 FROM gateway.credit_payments");
    expect(claimed).toEqual([]);
  });
});
