import { createRoute, jsonResponse, z } from "@app/core";
import { PRICES } from "../domain/pricing.ts";
import { type FortuneApp, paymentInfo, type RouteDeps, SIWX_SECURITY } from "./shared.ts";

const Membership = z
  .object({ wallet: z.string(), fortune: z.string(), member: z.literal(true) })
  .openapi("Membership");

/**
 * POST /api/fortune/membership: pay once by x402 `upto` (0.005 authorised, 0.002
 * settled) and the paying wallet becomes a member; later calls with a valid
 * SIGN-IN-WITH-X from that wallet run free.
 */
export function registerFortuneMembership(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/fortune/membership",
    operationId: "fortune_membership",
    tags: ["Fortune"],
    summary: "Pay once, then replay free with Sign-In-With-X",
    ...paymentInfo(deps, { mode: "fixed", amount: PRICES.membershipMax }, ["x402"]),
    security: SIWX_SECURITY,
    responses: {
      200: jsonResponse(Membership, "Successful response"),
      402: { description: "Authentication Required" },
    },
  });
  app.openapi(route, (c) =>
    deps.gate.handle(
      c,
      {
        route: "fortune_membership",
        path: route.path,
        description: "Membership: pay once, then sign in",
        x402: { scheme: "upto", priceUsd: PRICES.membershipMax },
        siwxReplay: true,
        request: null,
      },
      async (ctx) => {
        ctx.charge(PRICES.membershipCharge);
        return { wallet: ctx.payer, fortune: await deps.writer.fortune(), member: true as const };
      },
    ),
  );
}
