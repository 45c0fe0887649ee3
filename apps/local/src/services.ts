import { createFortuneService } from "@app/fortune";
import { localChainRails } from "@app/fortune/local";
import { gatewayService } from "@app/gateway";
import { marketsService } from "@app/markets";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { sandboxService } from "@app/sandbox";
import { shopService } from "@app/shop";

/**
 * Every service of the platform, in start order (upstreams and the sandbox before their callers).
 * The launcher gives fortune its chain: the local chain (`@app/local-chain`), started on fortune's
 * settings when `FORTUNE_RAILS=local` (the default); the service itself never starts one.
 */
export const platformServices: ServiceDefinition<never>[] = [
  sandboxService,
  shopService,
  marketsService,
  publisherService,
  gatewayService,
  createFortuneService({ localChain: localChainRails }),
] as ServiceDefinition<never>[];
