import {
  ApiError,
  createRoute,
  errorResponseSpec,
  jsonResponse,
  jsonTextOf,
  requestHeader,
  requestIdOf,
  z,
} from "@app/core";
import { idempotencyKeyOf, sendStoredResponse } from "@app/edge";
import { paymentInfo } from "@app/payments";
import { CREDIT_MAX_USD, CREDIT_MIN_USD, parseCreditAmount } from "../self-serve/credit-amount.ts";
import type { SelfServeDeps } from "../self-serve/deps.ts";
import { buyWithMpp } from "../self-serve/mpp-credit.ts";
import { buyWithX402 } from "../self-serve/x402-credit.ts";
import { UsdSchema } from "./self-serve-shared.ts";
import type { GatewayApp } from "./shared.ts";

const CreditBody = z
  .object({
    amount: z.string().openapi({
      description: `USD to add to the balance, a decimal string from ${CREDIT_MIN_USD} to ${CREDIT_MAX_USD} with at most 6 decimals`,
      example: "0.50",
    }),
  })
  .strict()
  .openapi("CreditBody");

export const CreditedSchema = z
  .object({
    credited: UsdSchema,
    balance: UsdSchema,
    transaction: z.string().nullable().openapi({ description: "The transaction that settled the payment" }),
  })
  .openapi("Credited");

/**
 * POST /v1/credits: buys `amount` USD of credit for the account owned by the paying wallet, paid
 * with x402 `exact` or an MPP charge of exactly that amount; credited once, after the payment
 * settled.
 */
export function registerCreditsBuy(app: GatewayApp, deps: SelfServeDeps): void {
  const route = createRoute({
    method: "post",
    path: "/v1/credits",
    operationId: "credits_buy",
    tags: ["Accounts"],
    summary: "Buy credit with your wallet",
    description:
      "Without a payment the answer is a 402 for the amount asked: `PAYMENT-REQUIRED` (x402 `exact`) and `WWW-Authenticate: Payment` (an MPP charge). The account credited is the one owned by the wallet that pays. Send `Idempotency-Key` to make retries safe.",
    ...paymentInfo({ mode: "dynamic", min: CREDIT_MIN_USD, max: CREDIT_MAX_USD }, ["x402", "mpp"], deps.mpp),
    request: { body: { required: true, content: { "application/json": { schema: CreditBody } } } },
    responses: {
      200: jsonResponse(
        CreditedSchema,
        "Credited: the amount, the balance it left, the settling transaction",
      ),
      400: errorResponseSpec(
        "The body is not `{amount}` within bounds, or the Idempotency-Key is malformed (VALIDATION_FAILED)",
      ),
      402: { description: "Payment Required" },
      404: errorResponseSpec("The paying wallet owns no account (ACCOUNT_NOT_FOUND); nothing was charged"),
      409: errorResponseSpec(
        "A purchase with this Idempotency-Key has not answered yet (REQUEST_IN_PROGRESS)",
      ),
      422: errorResponseSpec("This Idempotency-Key was used with another amount (IDEMPOTENCY_KEY_REUSED)"),
      503: errorResponseSpec(
        "SETTLEMENT_PENDING (sent, not confirmed: credited once it is) or PAYMENTS_UNAVAILABLE (nothing charged); see Retry-After",
      ),
    },
  });
  app.openapi(route, async (c) => {
    const amount = parseCreditAmount(c.req.valid("json").amount);
    if ("refused" in amount) {
      throw new ApiError("VALIDATION_FAILED", "The amount of credit is not valid.", {
        issues: [{ path: "amount", message: amount.refused }],
      });
    }
    const input = {
      request: c.req.raw,
      path: route.path,
      amount,
      idempotencyKey: idempotencyKeyOf(c),
      requestId: requestIdOf(c),
    };
    const x402 = requestHeader(c, "payment-signature") ?? requestHeader(c, "x-payment");
    const mpp = /^Payment\s/i.test(requestHeader(c, "authorization") ?? "");
    if (!x402 && !mpp) throw await deps.challenges.paymentRequired(c.req.raw, route.path, amount);
    const answer = x402
      ? await buyWithX402(deps.purchase, input, x402)
      : await buyWithMpp(deps.purchase, input);
    return jsonTextOf<z.infer<typeof CreditedSchema>>(
      sendStoredResponse(c, answer.response, answer.replayed),
    );
  });
}
