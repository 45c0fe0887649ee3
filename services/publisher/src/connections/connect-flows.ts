import { randomBytes } from "node:crypto";
import type { Clock, TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import type { BlueskyIdentityResolver } from "../platforms/bluesky/identity.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { Adapters } from "../platforms/index.ts";
import { newPkceVerifier } from "../platforms/pkce.ts";
import { findAccount } from "../store/accounts.ts";
import { type ConnectionSecrets, upsertConnection } from "../store/connections.ts";
import { consumeOAuthGrant, insertOAuthGrant } from "../store/connections-oauth-grants.ts";
import { consumeOAuthState, insertOAuthState } from "../store/connections-oauth-states.ts";
import { ConnectionError } from "./errors.ts";
import { blueskySecrets } from "./refresh.ts";

export type OAuthPlatform = "youtube" | "tiktok";

export type ConnectFlowDeps = {
  db: Database;
  clock: Clock;
  sealer: TextSealer;
  adapters: Adapters;
  /** The publisher's public base URL: the callbacks are `<publicUrl>/oauth/<platform>/callback`. */
  publicUrl: string;
  /** Finds a Bluesky account's own PDS from its handle or DID. */
  blueskyIdentity: BlueskyIdentityResolver;
};

/** A connection as the API shows it (spec: `id, platform, account_name, account_id`). */
export type ConnectionView = { id: string; platform: Platform; account_name: string; account_id: string };

const STATE_TTL_MS = 10 * 60_000;
const GRANT_TTL_MS = 10 * 60_000;

export const callbackPath = (platform: OAuthPlatform) => `/oauth/${platform}/callback`;

/** Starts a connect: a state bound to the account (stored hashed, ten minutes) and the authorize URL. */
export async function startConnect(
  deps: ConnectFlowDeps,
  input: { accountId: string; platform: OAuthPlatform },
): Promise<{ authorizeUrl: string; expiresIn: number }> {
  const state = randomBytes(32).toString("base64url");
  const verifier = newPkceVerifier();
  const redirectUri = `${deps.publicUrl.replace(/\/$/, "")}${callbackPath(input.platform)}`;
  const now = deps.clock.now();
  await insertOAuthState(deps.db, {
    state,
    accountId: input.accountId,
    platform: input.platform,
    sealedVerifier: deps.sealer.seal(verifier, "oauth-state"),
    redirectUri,
    expiresAt: new Date(now.getTime() + STATE_TTL_MS),
    now,
  });
  const authorizeUrl = deps.adapters[input.platform].oauth.authorizeUrl({
    state,
    codeVerifier: verifier,
    redirectUri,
  });
  return { authorizeUrl, expiresIn: STATE_TTL_MS / 1000 };
}

/** What the person at the browser is asked to confirm: which channel joins which publisher account. */
export type PendingGrant = {
  /** One-time, random: the confirm step must present it (stored only as its hash). */
  confirmation: string;
  expiresIn: number;
  platform: OAuthPlatform;
  publisherAccount: { id: string; name: string };
  platformAccount: { id: string; name: string };
};

/**
 * The callback's half of a connect: the state taken once, the code traded for tokens and the
 * platform account identified. Nothing is connected yet: the tokens wait, sealed, for
 * {@link confirmConnect}, so a connect link forwarded to someone else shows them which publisher
 * account their channel would join before it does.
 */
export async function grantConnect(
  deps: ConnectFlowDeps,
  input: { platform: OAuthPlatform; state: string; code: string },
): Promise<PendingGrant> {
  const pending = await consumeOAuthState(deps.db, {
    state: input.state,
    platform: input.platform,
    now: deps.clock.now(),
  });
  if (!pending)
    throw new ConnectionError(
      "OAUTH_STATE_INVALID",
      "The connect link is unknown, used or expired; start again.",
    );
  const verifier = deps.sealer.open(pending.sealedVerifier, "oauth-state");
  const adapter = deps.adapters[input.platform];
  const tokens = await platformCall(() =>
    adapter.oauth.exchangeCode({
      code: input.code,
      codeVerifier: verifier,
      redirectUri: pending.redirectUri,
    }),
  );
  const identity =
    input.platform === "youtube"
      ? await youtubeIdentity(deps.adapters, tokens.accessToken)
      : await tiktokIdentity(deps.adapters, tokens.accessToken);
  const account = await findAccount(deps.db, pending.accountId);
  if (!account)
    throw new ConnectionError("OAUTH_STATE_INVALID", "The account that started this connect is gone.");
  const confirmation = randomBytes(32).toString("base64url");
  const secrets: ConnectionSecrets = { ...tokens };
  const now = deps.clock.now();
  await insertOAuthGrant(deps.db, {
    confirmation,
    accountId: account.id,
    platform: input.platform,
    platformAccountId: identity.platformAccountId,
    accountName: identity.accountName,
    sealedSecrets: deps.sealer.seal(JSON.stringify(secrets), "oauth-grant"),
    expiresAt: new Date(now.getTime() + GRANT_TTL_MS),
    now,
  });
  return {
    confirmation,
    expiresIn: GRANT_TTL_MS / 1000,
    platform: input.platform,
    publisherAccount: { id: account.id, name: account.name },
    platformAccount: { id: identity.platformAccountId, name: identity.accountName },
  };
}

/** The confirm step: the grant taken once and the connection saved to the account that started it. */
export async function confirmConnect(
  deps: ConnectFlowDeps,
  input: { platform: OAuthPlatform; confirmation: string },
): Promise<ConnectionView> {
  const grant = await consumeOAuthGrant(deps.db, { ...input, now: deps.clock.now() });
  if (!grant)
    throw new ConnectionError(
      "OAUTH_STATE_INVALID",
      "The confirmation is unknown, used or expired; start the connect again.",
    );
  return save(deps, {
    accountId: grant.accountId,
    platform: grant.platform,
    accountName: grant.accountName,
    platformAccountId: grant.platformAccountId,
    secrets: JSON.parse(deps.sealer.open(grant.sealedSecrets, "oauth-grant")) as ConnectionSecrets,
  });
}

/** The person at the browser said no: the waiting grant is dropped; false when there was none. */
export async function declineConnect(
  deps: ConnectFlowDeps,
  input: { platform: OAuthPlatform; confirmation: string },
): Promise<boolean> {
  return (await consumeOAuthGrant(deps.db, { ...input, now: deps.clock.now() })) !== undefined;
}

/**
 * Both halves at once, for a caller that is itself the account's owner (the launcher seeding its
 * demo account, tests): no browser to ask.
 */
export async function completeConnect(
  deps: ConnectFlowDeps,
  input: { platform: OAuthPlatform; state: string; code: string },
): Promise<ConnectionView> {
  const grant = await grantConnect(deps, input);
  return confirmConnect(deps, { platform: input.platform, confirmation: grant.confirmation });
}

/**
 * Connects a Bluesky account with its handle (or DID) and an app password: the account's own PDS
 * is found from its DID document, the password checked by signing in there, and the session kept
 * with that PDS (where it is refreshed and published to).
 */
export async function connectBluesky(
  deps: ConnectFlowDeps,
  input: { accountId: string; handle: string; appPassword: string },
): Promise<ConnectionView> {
  const identity = await deps.blueskyIdentity.resolve(input.handle).catch((error: unknown) => {
    if (!(error instanceof PlatformError)) throw error;
    if (error.kind === "transient")
      throw new ConnectionError("PLATFORM_UNAVAILABLE", `The platform did not answer (${error.reason}).`);
    throw new ConnectionError(
      "BLUESKY_ACCOUNT_NOT_FOUND",
      `Could not find where this Bluesky account lives: ${error.message}`,
    );
  });
  const session = await platformCall(() =>
    deps.adapters.bluesky.createSession(identity.pds, identity.did, input.appPassword),
  ).catch((error: unknown) => {
    if (error instanceof ConnectionError && error.code === "PLATFORM_UNAVAILABLE") throw error;
    throw new ConnectionError("BLUESKY_LOGIN_FAILED", "Bluesky refused the handle or app password.");
  });
  if (session.did !== identity.did) {
    throw new ConnectionError("BLUESKY_LOGIN_FAILED", "The PDS signed in another account than the handle's.");
  }
  return save(deps, {
    accountId: input.accountId,
    platform: "bluesky",
    // The handle the DID document and the handle resolution agree on, not what the PDS says.
    accountName: identity.handle ?? identity.did,
    platformAccountId: identity.did,
    secrets: blueskySecrets(session, identity.pds, input.appPassword),
  });
}

async function save(
  deps: ConnectFlowDeps,
  input: {
    accountId: string;
    platform: Platform;
    accountName: string;
    platformAccountId: string;
    secrets: ConnectionSecrets;
  },
): Promise<ConnectionView> {
  const { id } = await deps.db.transaction((tx) =>
    upsertConnection(tx, deps.sealer, input, deps.clock.now()),
  );
  return {
    id,
    platform: input.platform,
    account_name: input.accountName,
    account_id: input.platformAccountId,
  };
}

async function youtubeIdentity(adapters: Adapters, accessToken: string) {
  const channel = await platformCall(() => adapters.youtube.channel(accessToken));
  if (!channel)
    throw new ConnectionError("NO_YOUTUBE_CHANNEL", "This Google account has no YouTube channel.");
  return { accountName: channel.title, platformAccountId: channel.id };
}

/**
 * The creator's open_id, and the @username `creator_info` gives with `video.publish` (user info
 * has it only under `user.info.profile`, which the publisher does not ask for); the display name
 * when `creator_info` cannot answer.
 */
async function tiktokIdentity(adapters: Adapters, accessToken: string) {
  const user = await platformCall(() => adapters.tiktok.userInfo(accessToken));
  const creator = await adapters.tiktok.creatorInfo(accessToken).catch(() => undefined);
  return { accountName: creator?.username || user.displayName, platformAccountId: user.openId };
}

/** A platform call whose refusal becomes a connect error (its reason kept, no token in it). */
async function platformCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof PlatformError)) throw error;
    if (error.kind === "transient")
      throw new ConnectionError("PLATFORM_UNAVAILABLE", `The platform did not answer (${error.reason}).`);
    throw new ConnectionError("OAUTH_DENIED", `The platform refused: ${error.describe()}`);
  }
}
