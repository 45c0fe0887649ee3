export { createApp, type ShopDeps } from "./app.ts";
export { loadShopConfig, type ShopConfig } from "./config.ts";
export { shopService } from "./service.ts";
