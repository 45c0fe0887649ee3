import { createServiceApp } from "@app/core";
import { buildPaymentRequired } from "@app/payments";
import { silentLogger } from "@app/testkit";
import { decodePaymentRequiredHeader } from "@x402/core/http";
import { describe, expect, test } from "vitest";
import { challengeOf, PaymentRequiredError } from "../../src/payments/responses.ts";

const x402 = buildPaymentRequired({
  accepts: [],
  url: "http://fortune.test/api/fortune/profile",
  description: "Your verified wallet identity",
  error: "siwx_expired",
});

/** An app whose one route throws `error`, answered by the platform's error handler. */
function throwing(error: Error) {
  const app = createServiceApp({
    name: "t",
    title: "T",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => undefined,
  });
  app.get("/paid", () => {
    throw error;
  });
  return app;
}

describe("a 402 thrown by the payment gate", () => {
  test("is answered with the challenge's own body, byte for byte, and its payment headers", async () => {
    const challenge = challengeOf(
      x402,
      ['Payment id="a", method="tempo"', 'Payment id="b", method="stripe"'],
      {
        ...x402,
        message: "The sign-in has expired.",
      },
    );
    const res = await throwing(new PaymentRequiredError(challenge, "The sign-in has expired.")).request(
      "/paid",
    );
    expect(res.status).toBe(402);
    expect(await res.text()).toBe(challenge.body);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(decodePaymentRequiredHeader(res.headers.get("payment-required") ?? "")).toEqual(x402);
    expect(res.headers.get("www-authenticate")).toBe(
      'Payment id="a", method="tempo", Payment id="b", method="stripe"',
    );
  });

  test("without MPP challenges carries no WWW-Authenticate, and its body stays the x402 object", async () => {
    const challenge = challengeOf(x402, []);
    const res = await throwing(new PaymentRequiredError(challenge, "Payment required.")).request("/paid");
    expect(res.headers.has("www-authenticate")).toBe(false);
    expect(Object.keys(JSON.parse(await res.text()))[0]).toBe("x402Version");
  });

  test("keeps its body when headers are added on the way out", async () => {
    const challenge = challengeOf(x402, []);
    const error = new PaymentRequiredError(challenge, "Payment required.").withHeaders({
      "Retry-After": "1",
    });
    const res = await throwing(error).request("/paid");
    expect([res.status, await res.text(), res.headers.get("retry-after")]).toEqual([
      402,
      challenge.body,
      "1",
    ]);
  });
});
