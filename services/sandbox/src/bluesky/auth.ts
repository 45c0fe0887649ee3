import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { bearerToken } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { type BlueskyAccount, hostedAccount } from "./accounts.ts";
import { didDocumentOfAccount } from "./did-documents.ts";
import { type SessionClaims, signJwt, verifyJwt } from "./jwt.ts";
import { type PdsHost, pdsDid } from "./network.ts";

const REFRESH_TTL_SECONDS = 90 * 86_400;

/** What createSession, refreshSession and getSession say about the account (the PDS's `didDoc` included). */
export function sessionView(c: Context, host: PdsHost, account: BlueskyAccount) {
  return {
    handle: account.handle,
    did: account.did,
    didDoc: didDocumentOfAccount(c, host, account),
    email: account.email,
    emailConfirmed: true,
    active: true,
  };
}

/**
 * A new session: access and refresh JWTs (HS256, as a PDS's are). The refresh token is
 * remembered by its jti; `jti` reuses a rotated token's next id (the PDS's grace behaviour).
 */
export function issueSession(
  c: Context,
  ctx: SandboxContext,
  host: PdsHost,
  account: BlueskyAccount,
  appPassword: boolean,
  jti: string = randomUUID(),
) {
  const now = Math.floor(ctx.kit.clock.now().getTime() / 1000);
  const aud = pdsDid(c);
  const refreshExp = now + REFRESH_TTL_SECONDS;
  if (!ctx.bluesky.refreshTokens.has(jti)) {
    ctx.bluesky.refreshTokens.set(jti, { did: account.did, appPassword, expiresAt: refreshExp * 1000 });
  }
  const access: SessionClaims = {
    scope: appPassword ? "com.atproto.appPass" : "com.atproto.access",
    sub: account.did,
    aud,
    iat: now,
    exp: now + ctx.settings.bluesky.accessTokenTtlSeconds,
  };
  const refresh: SessionClaims = {
    scope: "com.atproto.refresh",
    sub: account.did,
    aud,
    iat: now,
    exp: refreshExp,
    jti,
  };
  return {
    accessJwt: signJwt(access, ctx.bluesky.jwtSecret, "at+jwt"),
    refreshJwt: signJwt(refresh, ctx.bluesky.jwtSecret, "refresh+jwt"),
    ...sessionView(c, host, account),
  };
}

/**
 * The claims of the request's bearer token, which this PDS must have signed: a token of the
 * other PDS (its account lives there) cannot be verified here, as on the real network.
 */
function claimsOf(
  c: Context,
  ctx: SandboxContext,
  host: PdsHost,
): SessionClaims & { account: BlueskyAccount } {
  const token = bearerToken(c);
  if (!token) throw new PlatformFailure(401, "AuthenticationRequired", "Authentication Required");
  const claims = verifyJwt(token, ctx.bluesky.jwtSecret);
  const account = claims ? hostedAccount(claims.sub, host.name) : undefined;
  if (!claims || !account) throw new PlatformFailure(401, "InvalidToken", "Token could not be verified");
  return { ...claims, account };
}

/** The account of a request's valid access token (400 ExpiredToken when it has expired, as a PDS answers). */
export function accessCaller(c: Context, ctx: SandboxContext, host: PdsHost): BlueskyAccount {
  const claims = claimsOf(c, ctx, host);
  if (claims.scope === "com.atproto.refresh")
    throw new PlatformFailure(400, "InvalidToken", "Bad token scope");
  const notBefore = ctx.bluesky.accessNotBefore.get(claims.sub) ?? 0;
  if (claims.exp * 1000 <= ctx.kit.clock.now().getTime() || claims.iat * 1000 < notBefore) {
    throw new PlatformFailure(400, "ExpiredToken", "Token has expired");
  }
  return claims.account;
}

/** The refresh token's claims and account; the JWT must not have expired (whether it is still live is the caller's question). */
export function refreshCaller(
  c: Context,
  ctx: SandboxContext,
  host: PdsHost,
): SessionClaims & { jti: string; account: BlueskyAccount } {
  const claims = claimsOf(c, ctx, host);
  if (claims.scope !== "com.atproto.refresh" || !claims.jti) {
    throw new PlatformFailure(400, "InvalidToken", "Invalid token type");
  }
  if (claims.exp * 1000 <= ctx.kit.clock.now().getTime()) {
    throw new PlatformFailure(400, "ExpiredToken", "Token has expired");
  }
  return claims as SessionClaims & { jti: string; account: BlueskyAccount };
}

/**
 * Rotates a refresh token as a PDS's `rotateRefreshToken` does: the old token keeps working
 * for the grace period (or until its own expiry, if sooner), and every use of it in that time
 * issues the same next token id; after it, the old token is `ExpiredToken` "Token has been revoked".
 */
export function rotateRefreshToken(
  ctx: SandboxContext,
  jti: string,
): { nextJti: string; appPassword: boolean } {
  const entry = ctx.bluesky.refreshTokens.get(jti);
  const now = ctx.kit.clock.now().getTime();
  if (!entry || entry.expiresAt <= now) {
    ctx.bluesky.refreshTokens.delete(jti);
    throw new PlatformFailure(400, "ExpiredToken", "Token has been revoked");
  }
  const graceEnd = now + ctx.settings.bluesky.refreshGraceSeconds * 1000;
  const nextJti = entry.nextJti ?? randomUUID();
  ctx.bluesky.refreshTokens.set(jti, { ...entry, expiresAt: Math.min(graceEnd, entry.expiresAt), nextJti });
  return { nextJti, appPassword: entry.appPassword };
}
