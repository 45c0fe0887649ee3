export { createApp, type MarketsDeps } from "./app.ts";
export { loadMarketsConfig, type MarketsConfig } from "./config.ts";
export { buildMarketsApp, marketsService } from "./service.ts";
