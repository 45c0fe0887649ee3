import type { Database } from "@app/db";
import { seedDemoAccount } from "@app/gateway/demo";
import { marketsDemo } from "@app/markets/demo";
import { seedDemoShop } from "@app/shop/demo";

type ServiceUrls = Record<string, { url: string }>;

/**
 * The demo data `npm start` gives the tool gateway and its upstreams: a shop with services and a
 * shop key, the markets' sample refs, a gateway account with credit and a key. Local use only:
 * production code never imports the services' `demo` modules.
 */
export async function seedDemos(db: Database, services: ServiceUrls): Promise<Record<string, unknown>> {
  const demos: Record<string, unknown> = {};
  if (services.shop) demos.shop = await seedDemoShop(db);
  if (services.markets) demos.markets = marketsDemo();
  if (services.gateway) demos.gateway = await seedDemoAccount(db);
  return demos;
}
