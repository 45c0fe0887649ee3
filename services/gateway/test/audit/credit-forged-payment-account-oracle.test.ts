import { json, test } from "@app/testkit";
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload, PaymentRequired } from "@x402/core/types";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type SelfServeGateway, startSelfServeGateway } from "../../testing/self-serve.ts";

const buy = (headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify({ amount: "0.50" }),
});

/**
 * An x402 payment naming `from` as its payer, signed by nobody: what anyone can write for any
 * address without its key.
 */
function unsignedPaymentFrom(required: PaymentRequired, from: string): string {
  const accepted = required.accepts[0] as PaymentRequired["accepts"][number];
  const payload: PaymentPayload = {
    x402Version: 2,
    resource: required.resource,
    accepted,
    payload: {
      signature: `0x${"11".repeat(65)}`,
      authorization: {
        from,
        to: accepted.payTo,
        value: accepted.amount,
        validAfter: "0",
        validBefore: String(Math.floor(Date.now() / 1000) + 600),
        nonce: `0x${"ab".repeat(32)}`,
      },
    },
  };
  return encodePaymentSignatureHeader(payload);
}

describe("POST /v1/credits with a payment nobody signed", () => {
  let h: SelfServeGateway;
  const owner = generatePrivateKey();
  const ownerAddress = privateKeyToAccount(owner).address;
  const stranger = privateKeyToAccount(generatePrivateKey()).address;

  test.beforeAll(async ({ db }) => {
    h = await startSelfServeGateway(db);
    const header = await h.signIn(owner, "/v1/accounts");
    const opened = await fetch(`${h.url}/v1/accounts`, {
      method: "POST",
      headers: { "sign-in-with-x": header },
    });
    expect(opened.status).toBe(201);
  });
  afterAll(async () => {
    await h?.stop();
  });

  test("does not tell whether the wallet it names owns an account: the same refusal for both", async () => {
    const challenge = await fetch(`${h.url}/v1/credits`, buy());
    const required = decodePaymentRequiredHeader(challenge.headers.get("payment-required") as string);

    const forOwner = await fetch(
      `${h.url}/v1/credits`,
      buy({ "payment-signature": unsignedPaymentFrom(required, ownerAddress) }),
    );
    const forStranger = await fetch(
      `${h.url}/v1/credits`,
      buy({ "payment-signature": unsignedPaymentFrom(required, stranger) }),
    );
    const ownerBody = await json(forOwner);
    const strangerBody = await json(forStranger);

    // Without the wallet's signature, nobody may learn that it has a gateway account.
    expect({ status: forStranger.status, error: strangerBody.error }).toEqual({
      status: forOwner.status,
      error: ownerBody.error,
    });
    expect(forOwner.status).toBe(402);
    expect(strangerBody).not.toHaveProperty("wallet");
  });
});
