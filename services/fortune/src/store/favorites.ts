import { newId } from "@app/core";
import type { Database } from "@app/db";
import { MAX_FAVORITES } from "../domain/favorites.ts";

export type Favorite = { id: string; fortune: string; createdAt: Date };

export type SaveFavorite =
  | { kind: "saved"; favorite: Favorite; count: number }
  | { kind: "limit" }
  | { kind: "exists" };

/** A wallet's saved fortunes, at most {@link MAX_FAVORITES}, unique by text. */
export class FavoritesStore {
  constructor(private readonly db: Database) {}

  async list(wallet: string): Promise<Favorite[]> {
    return this.db.query<Favorite>(
      `SELECT id, fortune, created_at AS "createdAt" FROM fortune.favorites
       WHERE wallet = $1 ORDER BY created_at, id`,
      [wallet.toLowerCase()],
    );
  }

  /** Saves a favorite; the count and the duplicate check hold under concurrent saves (row lock per wallet). */
  async save(wallet: string, fortune: string): Promise<SaveFavorite> {
    const owner = wallet.toLowerCase();
    return this.db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('fortune.favorites:' || $1))", [owner]);
      const existing = await tx.query<{ fortune: string }>(
        "SELECT fortune FROM fortune.favorites WHERE wallet = $1",
        [owner],
      );
      if (existing.some((row) => row.fortune === fortune)) return { kind: "exists" };
      if (existing.length >= MAX_FAVORITES) return { kind: "limit" };
      const [favorite] = await tx.query<Favorite>(
        `INSERT INTO fortune.favorites (id, wallet, fortune) VALUES ($1, $2, $3)
         RETURNING id, fortune, created_at AS "createdAt"`,
        [newId("fav"), owner, fortune],
      );
      return { kind: "saved", favorite: favorite as Favorite, count: existing.length + 1 };
    });
  }
}
