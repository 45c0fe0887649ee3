import { fortuneService } from "@app/fortune";
import { gatewayService } from "@app/gateway";
import { marketsService } from "@app/markets";
import { publisherService } from "@app/publisher";
import type { ServiceDefinition } from "@app/runtime";
import { sandboxService } from "@app/sandbox";
import { shopService } from "@app/shop";

/** Every service of the platform, in start order (upstreams and the sandbox before their callers). */
export const platformServices: ServiceDefinition<never>[] = [
  sandboxService,
  shopService,
  marketsService,
  publisherService,
  gatewayService,
  fortuneService,
] as ServiceDefinition<never>[];
