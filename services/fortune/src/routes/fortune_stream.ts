import { createRoute, errorResponseSpec } from "@app/core";
import { usdToAtomic } from "../domain/money.ts";
import { PRICES } from "../domain/pricing.ts";
import type { SessionBilling } from "../payments/session-billing.ts";
import { PromptRequest } from "./fortune_llm.ts";
import { sessionManagement, withJsonBody } from "./session-support.ts";
import { type FortuneApp, PAID_RESPONSES, paymentInfo, type RouteDeps } from "./shared.ts";

const PATH = "/api/fortune/stream";
const MAX_TOKENS = Number(usdToAtomic(PRICES.streamSessionMax) / usdToAtomic(PRICES.streamUnit));

/**
 * POST /api/fortune/stream: an MPP session over server-sent events: each token
 * (0.0001) is charged from the caller's channel before it is sent; when the
 * vouchers run out the stream asks for a new one (`payment-need-voucher`).
 */
export function registerFortuneStream(
  app: FortuneApp,
  deps: RouteDeps & { sessionBilling: SessionBilling },
): void {
  const route = createRoute({
    method: "post",
    path: PATH,
    operationId: "fortune_stream",
    tags: ["Fortune"],
    summary: "A reply streamed token by token, each token billed through an MPP session",
    ...paymentInfo(deps, { mode: "fixed", amount: PRICES.streamSessionMax }, ["mpp"]),
    request: { body: { required: true, content: { "application/json": { schema: PromptRequest } } } },
    responses: {
      200: {
        description: "Successful response",
        content: { "text/event-stream": { schema: { type: "string" } } },
      },
      400: errorResponseSpec("Invalid body: nothing is charged"),
      ...PAID_RESPONSES,
    },
  });
  app.use(PATH, sessionManagement(deps.mpp, "stream"));
  app.openapi(route, async (c) => {
    const { prompt } = c.req.valid("json");
    const request = withJsonBody(c, { prompt });
    // The text model runs only once the session's payment is accepted and the stream begins.
    const result = await deps.mpp.stream(request, async function* (signal) {
      let sent = 0;
      try {
        const words = await deps.writer.reply(prompt, MAX_TOKENS);
        for (const [index, token] of words.entries()) {
          if (signal.aborted) return;
          yield JSON.stringify({ index, token });
          sent += 1;
        }
      } finally {
        await deps.sessionBilling.billStream("fortune_stream", request, sent, PRICES.streamUnit);
      }
    });
    return result.status === 402 ? result.challenge : result.response;
  });
}
