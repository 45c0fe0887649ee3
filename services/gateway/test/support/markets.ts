import { serveApp } from "@app/core";
import type { Database } from "@app/db";
import { buildMarketsApp } from "@app/markets";
import { marketsDemo } from "@app/markets/demo";
import { silentLogger } from "@app/testkit";

/** The real markets service on a loopback port, on the test database (its schema is migrated too). */
export async function startRealMarkets(db: Database) {
  const app = buildMarketsApp({ startingBalanceMicro: 10_000_000_000n }, db, silentLogger());
  const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
  return { url: new URL(server.url), close: server.close, sampleRefs: marketsDemo().sampleRefs };
}
