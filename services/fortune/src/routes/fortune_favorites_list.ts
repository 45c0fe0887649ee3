import { createRoute, jsonResponse, z } from "@app/core";
import { type FortuneApp, type RouteDeps, SIWX_RESPONSES, SIWX_SECURITY } from "./shared.ts";

export const Favorite = z
  .object({ id: z.string(), fortune: z.string(), createdAt: z.string() })
  .openapi("Favorite");

/** GET /api/fortune/favorites: the signed-in wallet's saved fortunes. */
export function registerFortuneFavoritesList(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/fortune/favorites",
    operationId: "fortune_favorites",
    tags: ["Fortune"],
    summary: "Your saved fortunes",
    security: SIWX_SECURITY,
    responses: {
      200: jsonResponse(z.object({ favorites: z.array(Favorite) }), "Successful response"),
      ...SIWX_RESPONSES,
    },
  });
  app.openapi(route, async (c) => {
    const identity = await deps.gate.identify(c, route.path, "Your saved fortunes");
    const favorites = await deps.favorites.list(identity.wallet);
    return c.json(
      {
        favorites: favorites.map((f) => ({
          id: f.id,
          fortune: f.fortune,
          createdAt: f.createdAt.toISOString(),
        })),
      },
      200,
    );
  });
}
