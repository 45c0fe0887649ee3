import type { FortuneApp } from "./shared.ts";

export const GUIDANCE = [
  "Fortune API: pay per call with x402 or MPP; identity by Sign-In-With-X.",
  "POST /api/fortune for a single fortune ($0.001, x402 exact or MPP one-shot).",
  "POST /api/fortune/premium for x402 upto (up to $0.005; the reading's actual price is charged). Body {category: love|career|health}; 3 per category per 24 h.",
  "POST /api/fortune/llm for MPP request-mode metered billing ($0.001 per request, session max $0.01). Body {prompt}.",
  "POST /api/fortune/stream for MPP-streamed token-by-token billing ($0.0001 per token, session max $0.05). Body {prompt}.",
  "POST /api/fortune/dynamic for body-derived pricing (brief $0.01, detailed $0.03, comprehensive $0.05). Body {category: love|career|health|wealth, depth?}.",
  "POST /api/fortune/membership for pay-once-then-SIWX-replay ($0.002 settled of a $0.005 authorisation).",
  "GET /api/fortune/profile and GET/POST /api/fortune/favorites are SIWX (identity, no payment); at most 3 favorites.",
  "Unpaid requests get 402 with PAYMENT-REQUIRED (x402 v2) and WWW-Authenticate: Payment (MPP) challenges. Send Idempotency-Key to retry safely.",
];

const PAID_PATHS = [
  "/api/fortune",
  "/api/fortune/premium",
  "/api/fortune/dynamic",
  "/api/fortune/membership",
  "/api/fortune/llm",
  "/api/fortune/stream",
];
const MPP_PATHS = ["/api/fortune", "/api/fortune/dynamic", "/api/fortune/llm", "/api/fortune/stream"];

/** `/llms.txt` (plain guidance for agents) and the older `/.well-known/x402` resource list. */
export function registerDiscovery(app: FortuneApp, origin: () => URL): void {
  app.get("/llms.txt", (c) => c.text(`# Fortune API\n\n${GUIDANCE.map((line) => `- ${line}`).join("\n")}\n`));
  app.get("/.well-known/x402", (c) => {
    const base = origin();
    return c.json({
      version: 1,
      resources: PAID_PATHS.map((path) => new URL(path, base).toString()),
      mppResources: MPP_PATHS.map((path) => new URL(path, base).toString()),
      instructions: GUIDANCE.join("\n"),
    });
  });
}
