/**
 * What the local launcher shows for the markets service: sample refs that resolve, one of each
 * kind. Local tooling only: production code does not import this module.
 */
import type { DemoSeeder } from "@app/runtime";
import { seededCatalogue } from "./catalogue/catalogue.ts";

export type MarketsDemo = {
  /** Refs to paste into `GET /pm/event?ref=`, by kind. */
  sampleRefs: { url: string; slug: string; conditionId: string; tokenId: string };
  /** A first request to try, relative to the service's URL. */
  firstRequest: string;
};

/** Sample refs from the seeded catalogue (the same on every start). */
export function marketsDemo(): MarketsDemo {
  const catalogue = seededCatalogue();
  const event =
    catalogue.events.find((candidate) => candidate.negRisk && !candidate.closed) ?? catalogue.events[0];
  if (!event) throw new Error("The seeded catalogue is empty.");
  const market = event.markets.find((candidate) => !candidate.closed) ?? event.markets[0];
  if (!market) throw new Error(`The event ${event.slug} has no markets.`);
  const url = `https://polymarket.com/event/${event.slug}`;
  return {
    sampleRefs: { url, slug: market.slug, conditionId: market.conditionId, tokenId: market.clobTokenIds[0] },
    firstRequest: `/pm/event?ref=${encodeURIComponent(url)}`,
  };
}

/** The markets' demo for `npm start`: nothing to seed (the catalogue is built in), the sample refs to print. */
export const seedDemo: DemoSeeder = async () => marketsDemo();
