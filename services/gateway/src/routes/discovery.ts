import { paidPaths, wellKnownX402 } from "@app/payments";
import { SELF_SERVE_STEPS } from "../self-serve/guidance.ts";
import type { GatewayApp } from "./shared.ts";

/** Plain guidance for agents: from a wallet to a tool run. */
export const SELF_SERVE_GUIDANCE = [
  "Tool Gateway: run registered tools with a gateway key (POST /v1/run, or MCP at /mcp).",
  ...SELF_SERVE_STEPS,
];

/** `/.well-known/x402`: the paid resources, derived from the routes' own payment declarations. */
export function registerDiscovery(app: GatewayApp, origin: () => URL): void {
  let declared: ReturnType<typeof paidPaths> | undefined;
  app.get("/.well-known/x402", (c) => {
    declared ??= paidPaths(app.getOpenAPI31Document({ openapi: "3.1.0", info: { title: "", version: "" } }));
    return c.json(wellKnownX402(declared, origin(), SELF_SERVE_GUIDANCE.join("\n")));
  });
}
