import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { PRICES } from "../domain/pricing.ts";
import type { SessionBilling } from "../payments/session-billing.ts";
import { sessionManagement, withJsonBody } from "./session-support.ts";
import { type FortuneApp, PAID_RESPONSES, paymentInfo, type RouteDeps } from "./shared.ts";

export const PromptRequest = z.object({ prompt: z.string().min(1).max(280) }).openapi("PromptRequest");
const LlmReply = z.object({ prompt: z.string(), reply: z.string(), charged: z.string() }).openapi("LlmReply");

const PATH = "/api/fortune/llm";

/**
 * POST /api/fortune/llm: MPP session, request mode: each request is billed 0.001
 * from the caller's payment channel (session maximum 0.01).
 */
export function registerFortuneLlm(
  app: FortuneApp,
  deps: RouteDeps & { sessionBilling: SessionBilling },
): void {
  const route = createRoute({
    method: "post",
    path: PATH,
    operationId: "fortune_llm",
    tags: ["Fortune"],
    summary: "A fortune teller's reply, billed per request through an MPP session",
    ...paymentInfo(deps, { mode: "fixed", amount: PRICES.llmSessionMax }, ["mpp"]),
    request: { body: { required: true, content: { "application/json": { schema: PromptRequest } } } },
    responses: {
      200: jsonResponse(LlmReply, "Successful response"),
      400: errorResponseSpec("Invalid body: nothing is charged"),
      ...PAID_RESPONSES,
    },
  });
  app.use(PATH, sessionManagement(deps.mpp, "session"));
  app.openapi(route, async (c) => {
    const { prompt } = c.req.valid("json");
    const request = withJsonBody(c, { prompt });
    const result = await deps.mpp.session(request);
    if (result.status === 402) return result.challenge;
    const reply = (await deps.writer.reply(prompt, 60)).join("");
    const response = result.withReceipt(c.json({ prompt, reply, charged: PRICES.llmUnit }, 200));
    await deps.sessionBilling.billRequest("fortune_llm", request, response, PRICES.llmUnit);
    return response;
  });
}
