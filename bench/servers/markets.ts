import { marketsService } from "@app/markets";
import { marketsDemo } from "@app/markets/demo";
import type { ServiceDefinition } from "@app/runtime";
import { serveForBench } from "./service.ts";

/** What the markets bench server reports: where it listens and a ref to ask for. */
export type MarketsServerInfo = { url: string; ref: string };

await serveForBench(marketsService as ServiceDefinition<never>, { MARKETS_PORT: "0" }, async (service) => ({
  url: service.url,
  ref: marketsDemo().sampleRefs.slug,
}));
