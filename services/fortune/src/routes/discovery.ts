import { paidPaths, wellKnownX402 } from "@app/payments";
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

/**
 * `/llms.txt` (plain guidance for agents) and the older `/.well-known/x402` resource list, derived
 * from the routes' own payment declarations.
 */
export function registerDiscovery(app: FortuneApp, origin: () => URL): void {
  let declared: ReturnType<typeof paidPaths> | undefined;
  app.get("/llms.txt", (c) => c.text(`# Fortune API\n\n${GUIDANCE.map((line) => `- ${line}`).join("\n")}\n`));
  app.get("/.well-known/x402", (c) => {
    declared ??= paidPaths(app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "", version: "" } }));
    return c.json(wellKnownX402(declared, origin(), GUIDANCE.join("\n")));
  });
}
