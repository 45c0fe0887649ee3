import { createFortuneService } from "@app/fortune";
import { fortuneLocalChain } from "@app/fortune/local";
import { createGatewayService } from "@app/gateway";
import { gatewayLocalChain } from "@app/gateway/local";
import { sharedLocalChain } from "@app/local-chain";
import { marketsService } from "@app/markets";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { sandboxService } from "@app/sandbox";
import { shopService } from "@app/shop";

/** The platform's one local chain: started by the first service that asks for it, shared by both. */
const localChain = sharedLocalChain();

/**
 * Every service of the platform, in start order (upstreams and the sandbox before their callers).
 * The launcher gives fortune and the gateway their chain: one local chain (`@app/local-chain`),
 * started on fortune's settings (`FORTUNE_RAILS=local`, the default), or on the gateway's when
 * fortune's rails are hosted; neither service ever starts one itself.
 */
export const platformServices: ServiceDefinition<never>[] = [
  sandboxService,
  shopService,
  marketsService,
  publisherService,
  createFortuneService({ localChain: fortuneLocalChain(localChain) }),
  createGatewayService({ localChain: gatewayLocalChain(localChain) }),
] as ServiceDefinition<never>[];
