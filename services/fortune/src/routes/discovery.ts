import { PREMIUM_CATEGORIES, PRICES } from "../domain/pricing.ts";
import type { FortuneApp } from "./shared.ts";

/** Plain guidance for agents; every price comes from the price table. */
export const GUIDANCE = [
  "Fortune API: pay per call with x402 or MPP; identity by Sign-In-With-X.",
  `POST /api/fortune for a single fortune ($${PRICES.fortune}, x402 exact or MPP one-shot).`,
  `POST /api/fortune/premium for x402 upto (up to $${PRICES.premiumMax}; the reading's actual price is charged). Body {category: ${PREMIUM_CATEGORIES.join("|")}}; limited per category per rolling window.`,
  `POST /api/fortune/llm for MPP request-mode metered billing ($${PRICES.llmUnit} per request, session max $${PRICES.llmSessionMax}). Body {prompt}.`,
  `POST /api/fortune/stream for MPP-streamed token-by-token billing ($${PRICES.streamUnit} per token, session max $${PRICES.streamSessionMax}). Body {prompt}.`,
  "POST /api/fortune/dynamic for body-derived pricing (by depth: brief, detailed, comprehensive). Body {category, depth?}.",
  `POST /api/fortune/membership for pay-once-then-SIWX-replay ($${PRICES.membershipCharge} settled of a $${PRICES.membershipMax} authorisation).`,
  "GET /api/fortune/profile and GET/POST /api/fortune/favorites are SIWX (identity, no payment).",
  "Unpaid requests get 402 with PAYMENT-REQUIRED (x402 v2) and WWW-Authenticate: Payment (MPP) challenges. Send Idempotency-Key to retry safely.",
];

type PaymentInfo = { protocols?: Record<string, unknown>[] };

/** The paid operations the app declares (their `x-payment-info`), and which of them take MPP. */
function paidPaths(app: FortuneApp): { paid: string[]; mpp: string[] } {
  const document = app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "", version: "" } });
  const paid: string[] = [];
  const mpp: string[] = [];
  for (const [path, operations] of Object.entries(document.paths ?? {})) {
    for (const operation of Object.values(operations ?? {})) {
      const info = (operation as { "x-payment-info"?: PaymentInfo })["x-payment-info"];
      if (!info) continue;
      paid.push(path);
      if (info.protocols?.some((protocol) => "mpp" in protocol)) mpp.push(path);
    }
  }
  return { paid, mpp };
}

/**
 * `/llms.txt` (plain guidance for agents) and the older `/.well-known/x402` resource list, derived
 * from the routes' own payment declarations.
 */
export function registerDiscovery(app: FortuneApp, origin: () => URL): void {
  let declared: ReturnType<typeof paidPaths> | undefined;
  app.get("/llms.txt", (c) => c.text(`# Fortune API\n\n${GUIDANCE.map((line) => `- ${line}`).join("\n")}\n`));
  app.get("/.well-known/x402", (c) => {
    declared ??= paidPaths(app);
    const base = origin();
    return c.json({
      version: 1,
      resources: declared.paid.map((path) => new URL(path, base).toString()),
      mppResources: declared.mpp.map((path) => new URL(path, base).toString()),
      instructions: GUIDANCE.join("\n"),
    });
  });
}
