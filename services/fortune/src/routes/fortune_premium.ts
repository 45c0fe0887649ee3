import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { rateLimitedError } from "@app/edge";
import { PREMIUM_CATEGORIES, PRICES, premiumCharge } from "../domain/pricing.ts";
import type { PremiumRefusal } from "../domain/rate-limit.ts";
import { type FortuneApp, PAID_RESPONSES, paymentInfo, type RouteDeps } from "./shared.ts";

const PremiumRequest = z.object({ category: z.enum(PREMIUM_CATEGORIES) }).openapi("PremiumRequest");
const PremiumFortune = z
  .object({ fortune: z.string(), category: z.enum(PREMIUM_CATEGORIES), charged: z.string() })
  .openapi("PremiumFortune");

/** The platform's 429 (with `Retry-After` and the `RateLimit-*` headers) for a category's limit. */
const rateLimited = (category: string, decision: PremiumRefusal) =>
  rateLimitedError(
    decision,
    `The ${category} category has had its premium fortunes for now; try another category.`,
    { category },
  );

/**
 * POST /api/fortune/premium: x402 `upto` with a 0.005 maximum; the handler charges
 * the reading's actual price. Rate limited per category: before any payment is asked
 * (after an `Idempotency-Key` retry found no stored response), and again, atomically, before
 * settling; a payment that then fails gives its use back.
 */
export function registerFortunePremium(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/fortune/premium",
    operationId: "fortune_premium",
    tags: ["Fortune"],
    summary: "A premium fortune, charged up to 0.005",
    ...paymentInfo(deps, { mode: "fixed", amount: PRICES.premiumMax }, ["x402"]),
    request: { body: { required: true, content: { "application/json": { schema: PremiumRequest } } } },
    responses: {
      200: jsonResponse(PremiumFortune, "Successful response"),
      400: errorResponseSpec("Invalid body, or a charge over the authorised maximum"),
      ...PAID_RESPONSES,
      429: errorResponseSpec("This category's premium limit is reached"),
    },
  });
  app.openapi(route, async (c) => {
    const { category } = c.req.valid("json");
    return deps.gate.handle(
      c,
      {
        route: "fortune_premium",
        path: route.path,
        description: "A premium fortune",
        x402: { scheme: "upto", priceUsd: PRICES.premiumMax },
        request: { category },
        async admit() {
          const decision = await deps.premium.check(category);
          if (!decision.allowed) throw rateLimited(category, decision);
        },
      },
      async (ctx) => {
        const charged = premiumCharge(category);
        ctx.charge(charged);
        ctx.beforeSettle(async (paymentId) => {
          const reserved = await deps.premium.reserve(category, paymentId);
          if (!("id" in reserved)) throw rateLimited(category, reserved);
        });
        return { fortune: await deps.writer.fortune(category), category, charged };
      },
    );
  });
}
