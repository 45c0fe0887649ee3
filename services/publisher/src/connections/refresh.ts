import type { Platform } from "../contracts/post.ts";
import type { BlueskySession } from "../platforms/bluesky/bluesky-client.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { Adapters } from "../platforms/index.ts";
import type { ConnectionSecrets } from "../store/connections.ts";

/** When a JWT expires (its `exp` claim), as ISO 8601; undefined when it cannot be read. */
export function jwtExpiry(jwt: string): string | undefined {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as {
      exp?: unknown;
    };
    return typeof payload.exp === "number" ? new Date(payload.exp * 1000).toISOString() : undefined;
  } catch {
    return undefined;
  }
}

/** A Bluesky session as connection secrets. */
export function blueskySecrets(
  session: BlueskySession,
  service: string,
  appPassword: string,
): ConnectionSecrets {
  return {
    accessToken: session.accessJwt,
    refreshToken: session.refreshJwt,
    expiresAt: jwtExpiry(session.accessJwt),
    refreshExpiresAt: jwtExpiry(session.refreshJwt),
    service,
    did: session.did,
    appPassword,
  };
}

/**
 * New secrets for a connection whose access token expired or was refused: the OAuth refresh
 * grant (Google, TikTok), or Bluesky's refreshSession, falling back to signing in again with the
 * app password when the refresh JWT is gone. A lost grant throws a `reconnect` PlatformError.
 */
export async function refreshSecrets(
  adapters: Adapters,
  platform: Platform,
  secrets: ConnectionSecrets,
): Promise<ConnectionSecrets> {
  if (platform === "bluesky") return refreshBluesky(adapters, secrets);
  if (!secrets.refreshToken) {
    throw new PlatformError(
      platform,
      "reconnect",
      "no_refresh_token",
      "The connection has no refresh token.",
    );
  }
  const tokens = await adapters[platform].oauth.refresh(secrets.refreshToken);
  return { ...tokens };
}

/** The session, unless the PDS signed in another account than the connection's. */
function sameAccount(session: BlueskySession, secrets: ConnectionSecrets): BlueskySession {
  if (secrets.did && session.did !== secrets.did) {
    throw new PlatformError(
      "bluesky",
      "reconnect",
      "AccountMismatch",
      "The PDS answered for another account than the connection's.",
    );
  }
  return session;
}

async function refreshBluesky(adapters: Adapters, secrets: ConnectionSecrets): Promise<ConnectionSecrets> {
  const service = secrets.service ?? "";
  const appPassword = secrets.appPassword ?? "";
  if (secrets.refreshToken) {
    try {
      return blueskySecrets(
        sameAccount(await adapters.bluesky.refreshSession(service, secrets.refreshToken), secrets),
        service,
        appPassword,
      );
    } catch (error) {
      if (!(error instanceof PlatformError) || error.kind !== "reconnect" || !appPassword) throw error;
    }
  }
  if (!appPassword || !secrets.did) {
    throw new PlatformError(
      "bluesky",
      "reconnect",
      "ExpiredToken",
      "The session expired and no app password is kept.",
    );
  }
  return blueskySecrets(
    sameAccount(await adapters.bluesky.createSession(service, secrets.did, appPassword), secrets),
    service,
    appPassword,
  );
}
