export { createApp, type FortuneDeps } from "./app.ts";
export { type FortuneConfig, loadFortuneConfig } from "./config.ts";
export { fortuneService } from "./service.ts";
