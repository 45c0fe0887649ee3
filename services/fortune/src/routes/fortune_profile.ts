import { createRoute, jsonResponse, z } from "@app/core";
import { type FortuneApp, type RouteDeps, SIWX_RESPONSES, SIWX_SECURITY } from "./shared.ts";

const Profile = z
  .object({ wallet: z.string(), chainId: z.string(), verifiedAt: z.string() })
  .openapi("Profile");

/** GET /api/fortune/profile: the caller's verified wallet, by Sign-In-With-X; no payment. */
export function registerFortuneProfile(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/fortune/profile",
    operationId: "fortune_profile",
    tags: ["Fortune"],
    summary: "Your verified wallet identity",
    security: SIWX_SECURITY,
    responses: { 200: jsonResponse(Profile, "Successful response"), ...SIWX_RESPONSES },
  });
  app.openapi(route, async (c) => {
    const identity = await deps.gate.identify(c, route.path, "Your verified wallet identity");
    return c.json(
      { wallet: identity.wallet, chainId: identity.chainId, verifiedAt: identity.verifiedAt.toISOString() },
      200,
    );
  });
}
