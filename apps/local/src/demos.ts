import type { Env } from "@app/core";
import type { Database } from "@app/db";
import { seedDemoAccount } from "@app/gateway/demo";
import { marketsDemo } from "@app/markets/demo";
import { createConnectionSealer } from "@app/publisher";
import { seedDemoPublisher } from "@app/publisher/demo";
import { DEMO_GOOGLE, DEMO_TIKTOK } from "@app/sandbox/demo";
import { seedDemoShop } from "@app/shop/demo";

type ServiceUrls = Record<string, { url: string }>;

/**
 * The demo data `npm start` gives the services: a publisher account with an API key and YouTube,
 * TikTok and Bluesky accounts connected through the sandbox's OAuth flows; a shop with services
 * and a shop key; the markets' sample refs; a gateway account with credit and a key. Local use
 * only: production code never imports the services' `demo` modules.
 */
export async function seedDemos(
  db: Database,
  services: ServiceUrls,
  env: Env,
  credentials: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const demos: Record<string, unknown> = {};
  if (services.publisher && services.sandbox && env.PUBLISHER_TOKEN_SECRET) {
    demos.publisher = await seedDemoPublisher(db, {
      sandboxUrl: services.sandbox.url,
      publicUrl: services.publisher.url,
      sealer: createConnectionSealer(env.PUBLISHER_TOKEN_SECRET),
      bluesky: sandboxBlueskyNetwork(credentials),
    });
  }
  if (services.shop) demos.shop = await seedDemoShop(db);
  if (services.markets) demos.markets = marketsDemo();
  if (services.gateway) demos.gateway = await seedDemoAccount(db);
  return demos;
}

/** The sandbox's PLC directory and second PDS, from its credentials. */
function sandboxBlueskyNetwork(credentials: Record<string, unknown>): {
  plcUrl: string;
  trustedOrigins: string[];
} {
  const main = credentials.sandboxBluesky as { plcUrl?: string } | undefined;
  const selfHosted = credentials.sandboxBlueskySelfHosted as { service?: string } | undefined;
  if (!main?.plcUrl) throw new Error("The sandbox did not say where its PLC directory listens.");
  return { plcUrl: main.plcUrl, trustedOrigins: selfHosted?.service ? [selfHosted.service] : [] };
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
