/**
 * The demo publisher account for `npm start`: an account, a key, and YouTube, TikTok and Bluesky
 * connections made through the sandbox's real OAuth flows. Local use only: the launcher and tests
 * import it; production code never does.
 */
import { type Clock, systemClock, type TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { DemoSeeder } from "@app/runtime";
import { DEMO_BLUESKY, DEMO_GOOGLE, DEMO_TIKTOK } from "@app/sandbox/demo";
import {
  type ConnectFlowDeps,
  completeConnect,
  connectBluesky,
  startConnect,
} from "./connections/connect-flows.ts";
import { createConnectionSealer } from "./connections/sealer.ts";
import { type BlueskyIdentityResolver, createIdentityResolver } from "./platforms/bluesky/identity.ts";
import { type Adapters, createAdapters } from "./platforms/index.ts";
import { createAccount, createApiKey, findAccount } from "./store/accounts.ts";

export const DEMO_ACCOUNT_ID = "acct_publisher_demo";
/** The label of the demo key: each seeding revokes the keys bearing it and issues a fresh one. */
export const DEMO_KEY_LABEL = "demo";

export type PublisherDemo = {
  apiKey: string;
  accountId: string;
  connections: { youtube: string; tiktok: string; bluesky: string };
};

export type DemoOptions = {
  sandboxUrl: string;
  /** The publisher's base URL (the OAuth callbacks' origin; the sandbox accepts any loopback port). */
  publicUrl: string;
  sealer: TextSealer;
  clock?: Clock;
  /** Adapters already pointed at the sandbox; by default built here with the sandbox's demo apps. */
  adapters?: Adapters;
  /** The sandbox's PLC directory and the PDS origins to trust on loopback (its second PDS). */
  bluesky: { plcUrl: string; trustedOrigins?: string[] };
};

/** Finds Bluesky accounts as the publisher does, on the sandbox's network (its PDSes trusted on loopback). */
export function sandboxIdentity(
  sandboxUrl: string,
  bluesky: DemoOptions["bluesky"],
  adapters: Adapters,
): BlueskyIdentityResolver {
  return createIdentityResolver(
    {
      entryService: sandboxUrl,
      plcUrl: bluesky.plcUrl,
      trustedOrigins: [new URL(sandboxUrl).origin, ...(bluesky.trustedOrigins ?? [])],
    },
    adapters.bluesky,
  );
}

/** Adapters for the sandbox's demo apps (Google client, TikTok app) at its base URL. */
export function sandboxAdapters(sandboxUrl: string, clock: Clock = systemClock): Adapters {
  return createAdapters(
    {
      google: {
        authorizeBase: sandboxUrl,
        tokenBase: sandboxUrl,
        apiBase: sandboxUrl,
        clientId: DEMO_GOOGLE.clientId,
        clientSecret: DEMO_GOOGLE.clientSecret,
      },
      tiktok: {
        authorizeBase: sandboxUrl,
        apiBase: sandboxUrl,
        clientKey: DEMO_TIKTOK.clientKey,
        clientSecret: DEMO_TIKTOK.clientSecret,
      },
    },
    clock,
  );
}

/**
 * A user's consent on the sandbox: the authorize URL's form submitted with "Allow" for
 * `account`, as the consent page would; returns the callback's `code` and `state`.
 */
export async function approveOnSandbox(
  authorizeUrl: string,
  account: string,
): Promise<{ code: string; state: string }> {
  const url = new URL(authorizeUrl);
  const approvePath = url.pathname.endsWith("/") ? `${url.pathname}approve/` : `${url.pathname}/approve`;
  const form = new URLSearchParams(url.searchParams);
  form.set("decision", "allow");
  form.set("account", account);
  const res = await fetch(`${url.origin}${approvePath}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: form.toString(),
    redirect: "manual",
  });
  const location = res.headers.get("location");
  const back = location ? new URL(location).searchParams : undefined;
  const code = back?.get("code");
  const state = back?.get("state");
  if (!code || !state)
    throw new Error(`The sandbox did not grant access (${res.status} ${back?.get("error") ?? ""}).`);
  return { code, state };
}

/**
 * Seeds the demo: the account (once), a fresh demo key (earlier ones revoked), and the three
 * connections made through the sandbox's flows each time (the sandbox forgets grants when it
 * restarts; the connections keep their ids, matched by platform account).
 */
export async function seedDemoPublisher(db: Database, options: DemoOptions): Promise<PublisherDemo> {
  const clock = options.clock ?? systemClock;
  if (!(await findAccount(db, DEMO_ACCOUNT_ID))) {
    await createAccount(db, { id: DEMO_ACCOUNT_ID, name: "Publisher demo" }).catch(async (error: unknown) => {
      if (!(await findAccount(db, DEMO_ACCOUNT_ID))) throw error;
    });
  }
  await db.query(
    "UPDATE publisher.api_keys SET revoked_at = $3 WHERE account_id = $1 AND label = $2 AND revoked_at IS NULL",
    [DEMO_ACCOUNT_ID, DEMO_KEY_LABEL, clock.now()],
  );
  const { key } = await createApiKey(db, { accountId: DEMO_ACCOUNT_ID, label: DEMO_KEY_LABEL });
  const adapters = options.adapters ?? sandboxAdapters(options.sandboxUrl, clock);
  const deps: ConnectFlowDeps = {
    db,
    clock,
    sealer: options.sealer,
    adapters,
    publicUrl: options.publicUrl,
    blueskyIdentity: sandboxIdentity(options.sandboxUrl, options.bluesky, adapters),
  };
  const viaOAuth = async (platform: "youtube" | "tiktok", account: string) => {
    const { authorizeUrl } = await startConnect(deps, { accountId: DEMO_ACCOUNT_ID, platform });
    const granted = await approveOnSandbox(authorizeUrl, account);
    return (await completeConnect(deps, { platform, ...granted })).id;
  };
  const youtube = await viaOAuth("youtube", DEMO_GOOGLE.accounts.creator.id);
  const tiktok = await viaOAuth("tiktok", DEMO_TIKTOK.creators.public.openId);
  const bluesky = await connectBluesky(deps, {
    accountId: DEMO_ACCOUNT_ID,
    handle: DEMO_BLUESKY.handle,
    appPassword: DEMO_BLUESKY.appPassword,
  });
  return { apiKey: key, accountId: DEMO_ACCOUNT_ID, connections: { youtube, tiktok, bluesky: bluesky.id } };
}

/** The sandbox's PLC directory and second PDS, from the credentials it printed. */
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
 * The publisher's demo for `npm start`: {@link seedDemoPublisher} through the sandbox, when the
 * sandbox runs and the token secret is set.
 */
export const seedDemo: DemoSeeder = async ({ db, env, urls, credentials }) => {
  if (!urls.publisher || !urls.sandbox || !env.PUBLISHER_TOKEN_SECRET) return undefined;
  return seedDemoPublisher(db, {
    sandboxUrl: urls.sandbox,
    publicUrl: urls.publisher,
    sealer: createConnectionSealer(env.PUBLISHER_TOKEN_SECRET),
    bluesky: sandboxBlueskyNetwork(credentials),
  });
};
