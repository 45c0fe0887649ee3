import type { Env } from "@app/core";
import type { Database } from "@app/db";
import { seedDemo as seedGatewayDemo } from "@app/gateway/demo";
import { seedDemo as seedMarketsDemo } from "@app/markets/demo";
import { seedDemo as seedPublisherDemo } from "@app/publisher/demo";
import type { DemoSeeder } from "@app/runtime";
import { DEMO_GOOGLE, DEMO_TIKTOK } from "@app/sandbox/demo";
import { seedDemo as seedShopDemo } from "@app/shop/demo";

/** The services' demos, by service name, in the order they are seeded. */
const DEMO_SEEDERS: Record<string, DemoSeeder> = {
  publisher: seedPublisherDemo,
  shop: seedShopDemo,
  markets: seedMarketsDemo,
  gateway: seedGatewayDemo,
};

/**
 * The demo data `npm start` gives the services: a publisher account with an API key and YouTube,
 * TikTok and Bluesky accounts connected through the sandbox's OAuth flows; a shop with services
 * and a shop key; the markets' sample refs; a gateway account with credit and a key. Each running
 * service's `seedDemo` is called with the same context. Local use only: production code never
 * imports the services' `demo` modules.
 */
export async function seedDemos(
  db: Database,
  services: Record<string, { url: string }>,
  env: Env,
  credentials: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const urls = Object.fromEntries(Object.entries(services).map(([name, service]) => [name, service.url]));
  const demos: Record<string, unknown> = {};
  for (const [name, seed] of Object.entries(DEMO_SEEDERS)) {
    if (!services[name]) continue;
    const demo = await seed({ db, env, urls, credentials });
    if (demo) demos[name] = demo;
  }
  return demos;
}

/**
 * The platform apps the embedded publisher is registered as: the sandbox's demo Google client and
 * TikTok app (what a user registers with Google and TikTok for real; see the publisher's README).
 */
export const SANDBOX_APPS = {
  PUBLISHER_GOOGLE_CLIENT_ID: DEMO_GOOGLE.clientId,
  PUBLISHER_GOOGLE_CLIENT_SECRET: DEMO_GOOGLE.clientSecret,
  PUBLISHER_TIKTOK_CLIENT_KEY: DEMO_TIKTOK.clientKey,
  PUBLISHER_TIKTOK_CLIENT_SECRET: DEMO_TIKTOK.clientSecret,
};
