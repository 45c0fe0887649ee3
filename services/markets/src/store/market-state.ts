import type { Queryable } from "@app/db";
import type { Catalogue } from "../catalogue/catalogue.ts";
import type { CatalogueMarket } from "../catalogue/types.ts";
import { type LiveMarket, liveMarket, type MarketChanges } from "../domain/live-market.ts";
import { decodeBook, encodeLevels } from "./levels.ts";

type BookRow = {
  condition_id: string;
  bids: unknown;
  asks: unknown;
  last_trade_cents: number | null;
  traded_volume_micro: string;
  updated_at: Date;
};

type ResolutionRow = { condition_id: string; winner_index: number; resolved_at: Date };

/** Reads the live state of markets: the seed, overlaid with the books and resolutions trading wrote. */
export class MarketStateStore {
  constructor(
    private readonly db: Queryable,
    private readonly catalogue: Catalogue,
  ) {}

  /** The live state of each market, keyed by condition id, in two queries whatever their number. */
  async live(markets: readonly CatalogueMarket[]): Promise<Map<string, LiveMarket>> {
    const ids = markets.map((market) => market.conditionId);
    const [books, resolutions] = await Promise.all([
      this.db.query<BookRow>(
        `SELECT condition_id, bids, asks, last_trade_cents, traded_volume_micro::text AS traded_volume_micro,
                updated_at
         FROM markets.books WHERE condition_id = ANY($1)`,
        [ids],
      ),
      this.db.query<ResolutionRow>(
        "SELECT condition_id, winner_index, resolved_at FROM markets.resolutions WHERE condition_id = ANY($1)",
        [ids],
      ),
    ]);
    const changes = new Map<string, MarketChanges>();
    for (const row of books) {
      changes.set(row.condition_id, {
        book: {
          book: decodeBook(row.bids, row.asks),
          lastTradeCents: row.last_trade_cents,
          tradedVolumeMicro: BigInt(row.traded_volume_micro),
          updatedAt: row.updated_at.toISOString(),
        },
      });
    }
    for (const row of resolutions) {
      const entry = changes.get(row.condition_id) ?? {};
      entry.resolution = {
        winnerIndex: row.winner_index as 0 | 1,
        resolvedAt: row.resolved_at.toISOString(),
      };
      changes.set(row.condition_id, entry);
    }
    return new Map(
      markets.map((market) => [market.conditionId, liveMarket(market, changes.get(market.conditionId))]),
    );
  }

  /** The live state of one market. */
  async one(conditionId: string): Promise<LiveMarket | undefined> {
    const market = this.catalogue.market(conditionId);
    if (!market) return undefined;
    return (await this.live([market])).get(market.conditionId);
  }
}

/**
 * Takes a market's lock inside a transaction: the book row, created from the seed on the
 * market's first trade. Orders and resolution of one market run one at a time after this.
 */
export async function lockMarketBook(tx: Queryable, market: CatalogueMarket): Promise<BookRow> {
  await tx.query(
    `INSERT INTO markets.books (condition_id, bids, asks, last_trade_cents)
     VALUES ($1, $2::jsonb, $3::jsonb, $4) ON CONFLICT (condition_id) DO NOTHING`,
    [
      market.conditionId,
      encodeLevels(market.book.bids),
      encodeLevels(market.book.asks),
      market.lastTradeCents,
    ],
  );
  const [row] = await tx.query<BookRow>(
    `SELECT condition_id, bids, asks, last_trade_cents, traded_volume_micro::text AS traded_volume_micro, updated_at
     FROM markets.books WHERE condition_id = $1 FOR UPDATE`,
    [market.conditionId],
  );
  return row as BookRow;
}

/** Whether an operator resolved the market (read under the market's lock). */
export async function resolvedWinner(tx: Queryable, conditionId: string): Promise<0 | 1 | undefined> {
  const [row] = await tx.query<{ winner_index: number }>(
    "SELECT winner_index FROM markets.resolutions WHERE condition_id = $1",
    [conditionId],
  );
  return row === undefined ? undefined : (row.winner_index as 0 | 1);
}

export { decodeBook };
