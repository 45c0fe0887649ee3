export { createApp, type FortuneDeps } from "./app.ts";
export { type FortuneConfig, loadFortuneConfig } from "./config.ts";
export type { LocalChainProvider, ProvidedChain } from "./rails.ts";
export { createFortuneService, type FortuneServiceOptions, fortuneService } from "./service.ts";
