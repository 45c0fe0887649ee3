import { GatewayError } from "../errors.ts";
import type { GatewayApp } from "./shared.ts";

/**
 * The self-serve routes a gateway with payment rails serves (`registerSelfServe` in `app.ts`), as
 * Hono names their methods and paths. `PATCH /v1/keys/{id}` is not among them: a gateway key sets
 * policies on any gateway.
 */
export const SELF_SERVE_ROUTES = [
  { method: "POST", path: "/v1/accounts" },
  { method: "POST", path: "/v1/keys" },
  { method: "GET", path: "/v1/keys" },
  { method: "DELETE", path: "/v1/keys/:id" },
  { method: "POST", path: "/v1/credits" },
] as const;

/** 503 `NOT_CONFIGURED`: what a self-serve route answers on a gateway without payment rails. */
export function selfServeNotConfigured(): GatewayError {
  return new GatewayError(
    "NOT_CONFIGURED",
    "Self-serve accounts, keys and credit need payment rails, and this gateway was started without " +
      "them (GATEWAY_RAILS=off, or GATEWAY_RAILS=local with no local chain given, as when the gateway " +
      "is started alone). `npm start` at the repository root gives it the platform's local chain; " +
      "GATEWAY_RAILS=hosted uses hosted rails. Meanwhile an operator issues keys and credit with the " +
      "gateway's CLI.",
  );
}

/**
 * On a gateway without payment rails, the self-serve routes answer 503 `NOT_CONFIGURED` saying
 * why, instead of a 404 that reads as a wrong URL. They stay out of `/openapi.json`: this gateway
 * does not offer them.
 */
export function registerSelfServeNotConfigured(app: GatewayApp): void {
  for (const { method, path } of SELF_SERVE_ROUTES) {
    app.on(method, path, () => {
      throw selfServeNotConfigured();
    });
  }
}
