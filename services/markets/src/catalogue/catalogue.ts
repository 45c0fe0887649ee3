import type { RefIndex } from "../domain/ref.ts";
import { generateCatalogue } from "./generate.ts";
import type { CatalogueEvent, CatalogueMarket } from "./types.ts";

/** An outcome token and where it belongs. */
export type TokenRef = { market: CatalogueMarket; event: CatalogueEvent; outcomeIndex: 0 | 1 };

function addUnique<V>(map: Map<string, V>, key: string, value: V, what: string): void {
  if (map.has(key)) throw new Error(`Duplicate ${what} in the catalogue: ${key}`);
  map.set(key, value);
}

/**
 * The read model of events and markets: immutable, built once from the seed, with an index
 * for every kind of ref. What trading changes (books, volume, resolutions) lives in the database.
 */
export class Catalogue {
  readonly events: readonly CatalogueEvent[];
  readonly refIndex: RefIndex;
  private readonly eventsById = new Map<string, CatalogueEvent>();
  private readonly marketsByConditionId = new Map<string, CatalogueMarket>();
  private readonly tokens = new Map<string, TokenRef>();

  constructor(events: readonly CatalogueEvent[]) {
    this.events = events;
    const eventBySlug = new Map<string, string>();
    const marketSlugToEvent = new Map<string, string>();
    const marketIdToEvent = new Map<string, string>();
    const conditionIdToEvent = new Map<string, string>();
    const tokenIdToEvent = new Map<string, string>();
    for (const event of events) {
      addUnique(this.eventsById, event.id, event, "event id");
      addUnique(eventBySlug, event.slug, event.id, "event slug");
      for (const market of event.markets) {
        addUnique(marketSlugToEvent, market.slug, event.id, "market slug");
        addUnique(marketIdToEvent, market.id, event.id, "market id");
        addUnique(conditionIdToEvent, market.conditionId, event.id, "condition id");
        addUnique(this.marketsByConditionId, market.conditionId, market, "condition id");
        market.clobTokenIds.forEach((tokenId, index) => {
          addUnique(tokenIdToEvent, tokenId, event.id, "token id");
          this.tokens.set(tokenId, { market, event, outcomeIndex: index as 0 | 1 });
        });
      }
    }
    this.refIndex = {
      eventBySlug,
      eventById: new Map([...this.eventsById.keys()].map((id) => [id, id])),
      marketSlugToEvent,
      marketIdToEvent,
      conditionIdToEvent,
      tokenIdToEvent,
    };
  }

  event(id: string): CatalogueEvent | undefined {
    return this.eventsById.get(id);
  }

  market(conditionId: string): CatalogueMarket | undefined {
    return this.marketsByConditionId.get(conditionId.toLowerCase());
  }

  token(tokenId: string): TokenRef | undefined {
    return this.tokens.get(tokenId);
  }

  /** How many markets the catalogue holds. */
  get marketCount(): number {
    return this.marketsByConditionId.size;
  }
}

let seeded: Catalogue | undefined;

/** The catalogue generated from the seed (built on first use, then shared). */
export function seededCatalogue(): Catalogue {
  seeded ??= new Catalogue(generateCatalogue());
  return seeded;
}
