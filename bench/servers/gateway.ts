import { gatewayService } from "@app/gateway";
import { seedDemoAccount } from "@app/gateway/demo";
import type { ServiceDefinition } from "@app/runtime";
import { serveForBench } from "./service.ts";

/** What the gateway bench server reports: where it listens and a gateway key. */
export type GatewayServerInfo = { url: string; gatewayKey: string };

/** The gateway in front of the upstream named by `BENCH_MARKETS_URL`, its rate limit out of the way. */
await serveForBench(
  gatewayService as ServiceDefinition<never>,
  {
    GATEWAY_PORT: "0",
    GATEWAY_MARKETS_URL: process.env.BENCH_MARKETS_URL ?? "",
    GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000",
  },
  async (service, db) => ({ url: service.url, gatewayKey: (await seedDemoAccount(db)).gatewayKey }),
);
