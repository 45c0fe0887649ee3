import type { Database } from "@app/db";
import { gatewayService } from "@app/gateway";
import { seedDemoAccount } from "@app/gateway/demo";
import type { ServiceDefinition } from "@app/runtime";
import { serveForBench } from "./service.ts";

/** What the gateway bench server reports: where it listens and a gateway key. */
export type GatewayServerInfo = { url: string; gatewayKey: string };

/** The gateway's database work since the last ask: statements and the time spent in them. */
export type GatewayDbStats = { statements: number; ms: number };

const stats: GatewayDbStats = { statements: 0, ms: 0 };

/** The database, counting statements and the time until each answers (PGlite runs on this thread). */
function counting(db: Database): Database {
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await work();
    } finally {
      stats.statements += 1;
      stats.ms += performance.now() - started;
    }
  };
  return {
    ...db,
    query: (sql, params) => timed(() => db.query(sql, params)),
    transaction: (work) => timed(() => db.transaction(work)),
  };
}

/**
 * The gateway in front of the upstream named by `BENCH_MARKETS_URL`, its rate limit out of the
 * way, its tools priced by `BENCH_TOOL_PRICES` when set, its database counted. Asked `"db-stats"` over IPC, it answers (and resets) the counts.
 */
await serveForBench(
  {
    ...(gatewayService as ServiceDefinition<never>),
    build: (context) => gatewayService.build({ ...context, db: counting(context.db) } as never),
  },
  {
    GATEWAY_PORT: "0",
    GATEWAY_MARKETS_URL: process.env.BENCH_MARKETS_URL ?? "",
    GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000",
    // A priced gateway (BENCH_TOOL_PRICES, GATEWAY_TOOL_PRICES' JSON) debits the balance on every run.
    ...(process.env.BENCH_TOOL_PRICES ? { GATEWAY_TOOL_PRICES: process.env.BENCH_TOOL_PRICES } : {}),
  },
  async (service, db) => ({ url: service.url, gatewayKey: (await seedDemoAccount(db)).gatewayKey }),
  (message) => {
    if (message !== "db-stats") return undefined;
    const answer = { ...stats };
    stats.statements = 0;
    stats.ms = 0;
    return answer;
  },
);
