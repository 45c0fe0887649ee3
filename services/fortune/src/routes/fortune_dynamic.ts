import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { DEPTHS, dynamicPrice, PRICES } from "../domain/pricing.ts";
import { type FortuneApp, PAID_RESPONSES, paymentInfo, type RouteDeps } from "./shared.ts";

const DYNAMIC_CATEGORIES = ["love", "career", "health", "wealth"] as const;

const DynamicRequest = z
  .object({ category: z.enum(DYNAMIC_CATEGORIES), depth: z.enum(DEPTHS).default("brief") })
  .openapi("DynamicRequest");
const DynamicFortune = z
  .object({
    fortune: z.string(),
    category: z.enum(DYNAMIC_CATEGORIES),
    depth: z.enum(DEPTHS),
    price: z.string(),
  })
  .openapi("DynamicFortune");

/**
 * POST /api/fortune/dynamic: priced from the validated body (brief 0.01, detailed
 * 0.03, comprehensive 0.05); an invalid body is a 400 before any payment.
 */
export function registerFortuneDynamic(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/fortune/dynamic",
    operationId: "fortune_dynamic",
    tags: ["Fortune"],
    summary: "A fortune priced by its depth",
    ...paymentInfo(deps, { mode: "dynamic", min: "0", max: PRICES.dynamicMax }, ["x402", "mpp"]),
    request: { body: { required: true, content: { "application/json": { schema: DynamicRequest } } } },
    responses: {
      200: jsonResponse(DynamicFortune, "Successful response"),
      400: errorResponseSpec("Invalid body: nothing is charged"),
      ...PAID_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const { category, depth } = c.req.valid("json");
    const price = dynamicPrice(depth);
    return deps.gate.handle(
      c,
      {
        route: "fortune_dynamic",
        path: route.path,
        description: `A ${depth} fortune about ${category}`,
        x402: { scheme: "exact", priceUsd: price },
        mpp: { priceUsd: price },
        request: { category, depth },
      },
      async () => {
        const parts = depth === "brief" ? 1 : depth === "detailed" ? 2 : 3;
        const sentences = await Promise.all(
          Array.from({ length: parts }, () => deps.writer.fortune(category)),
        );
        return { fortune: sentences.join(" "), category, depth, price };
      },
    );
  });
}
