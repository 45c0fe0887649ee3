import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { FAVORITE_TEXT, MAX_FAVORITES } from "../domain/favorites.ts";
import { FortuneError } from "../errors.ts";
import { Favorite } from "./fortune_favorites_list.ts";
import { type FortuneApp, type RouteDeps, SIWX_RESPONSES, SIWX_SECURITY } from "./shared.ts";

const SaveFavorite = z
  .object({ fortune: z.string().trim().min(FAVORITE_TEXT.min).max(FAVORITE_TEXT.max) })
  .openapi("SaveFavorite");

/** POST /api/fortune/favorites: saves a fortune for the signed-in wallet (at most 3, no duplicates). */
export function registerFortuneFavoritesSave(app: FortuneApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/fortune/favorites",
    operationId: "fortune_favorites",
    tags: ["Fortune"],
    summary: "Save a fortune",
    security: SIWX_SECURITY,
    request: { body: { required: true, content: { "application/json": { schema: SaveFavorite } } } },
    responses: {
      200: jsonResponse(z.object({ favorite: Favorite, count: z.number().int() }), "Successful response"),
      400: errorResponseSpec("Invalid body"),
      ...SIWX_RESPONSES,
      409: errorResponseSpec("Already saved, or the wallet has 3 favorites"),
    },
  });
  app.openapi(route, async (c) => {
    const { fortune } = c.req.valid("json");
    const identity = await deps.gate.identify(c, route.path, "Save a fortune");
    const saved = await deps.favorites.save(identity.wallet, fortune);
    if (saved.kind === "limit") {
      throw new FortuneError("FAVORITES_LIMIT", `A wallet keeps at most ${MAX_FAVORITES} favorites.`, {
        limit: MAX_FAVORITES,
      });
    }
    if (saved.kind === "exists") throw new FortuneError("FAVORITE_EXISTS", "This fortune is already saved.");
    const { favorite, count } = saved;
    return c.json(
      {
        favorite: { id: favorite.id, fortune: favorite.fortune, createdAt: favorite.createdAt.toISOString() },
        count,
      },
      200,
    );
  });
}
