import { createRoute, jsonResponse } from "@app/core";
import { PRICES } from "../domain/pricing.ts";
import { type FortuneApp, FortuneBody, PAID_RESPONSES, paymentInfo, type RouteDeps } from "./shared.ts";

/** POST /api/fortune: one fortune for 0.001 USD, by x402 `exact` or an MPP charge. */
export function registerFortune(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/fortune",
    operationId: "fortune",
    tags: ["Fortune"],
    summary: "A single fortune",
    ...paymentInfo(deps, { mode: "fixed", amount: PRICES.fortune }, ["x402", "mpp"]),
    responses: { 200: jsonResponse(FortuneBody, "Successful response"), ...PAID_RESPONSES },
  });
  app.openapi(route, (c) =>
    deps.gate.handle(
      c,
      {
        route: "fortune",
        path: route.path,
        description: "A single fortune",
        x402: { scheme: "exact", priceUsd: PRICES.fortune },
        mpp: { priceUsd: PRICES.fortune },
        request: null,
      },
      async () => ({ fortune: await deps.writer.fortune(), timestamp: deps.clock.now().toISOString() }),
    ),
  );
}
