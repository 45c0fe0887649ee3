import { paidPaths, wellKnownX402 } from "@app/payments";
import { CREDIT_MAX_USD, CREDIT_MIN_USD } from "../self-serve/credit-amount.ts";
import type { GatewayApp } from "./shared.ts";

/** Plain guidance for agents: from a wallet to a tool run. */
export const SELF_SERVE_GUIDANCE = [
  "Tool Gateway: run registered tools with a gateway key (POST /v1/run, or MCP at /mcp).",
  "No key yet? Sign in with your wallet (Sign-In-With-X): POST /v1/accounts answers 402 with the sign-in challenge in PAYMENT-REQUIRED; send it signed as SIGN-IN-WITH-X to open your account and get its first key.",
  `POST /v1/credits with {amount} (${CREDIT_MIN_USD} to ${CREDIT_MAX_USD} USD) buys credit for the account your paying wallet owns: x402 exact or an MPP charge of that amount. Send Idempotency-Key to retry safely.`,
  "POST /v1/keys, GET /v1/keys and DELETE /v1/keys/{id} manage your keys, signed in with the same wallet.",
];

/** `/.well-known/x402`: the paid resources, derived from the routes' own payment declarations. */
export function registerDiscovery(app: GatewayApp, origin: () => URL): void {
  let declared: ReturnType<typeof paidPaths> | undefined;
  app.get("/.well-known/x402", (c) => {
    declared ??= paidPaths(app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "", version: "" } }));
    return c.json(wellKnownX402(declared, origin(), SELF_SERVE_GUIDANCE.join("\n")));
  });
}
