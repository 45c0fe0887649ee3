export { createApp, type MarketsDeps } from "./app.ts";
export { loadMarketsConfig, type MarketsConfig } from "./config.ts";
export { marketsService } from "./service.ts";
