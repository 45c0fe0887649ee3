import { randomUUID } from "node:crypto";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { DEMO_BLUESKY } from "../demo.ts";
import { bearerToken } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { type SessionClaims, signJwt, verifyJwt } from "./jwt.ts";

const REFRESH_TTL_SECONDS = 90 * 86_400;

/** The account behind a session: the one demo account. */
export const ACCOUNT = DEMO_BLUESKY;

/** The PDS's own DID (the tokens' audience). */
export function pdsDid(c: Context): string {
  return `did:web:${new URL(c.req.url).host.replace(":", "%3A")}`;
}

/** A new session for the account: access and refresh JWTs, the refresh one remembered by its jti. */
export function issueSession(c: Context, ctx: SandboxContext, appPassword: boolean) {
  const now = Math.floor(ctx.kit.clock.now().getTime() / 1000);
  const aud = pdsDid(c);
  const jti = randomUUID();
  ctx.bluesky.refreshTokens.set(jti, { did: ACCOUNT.did, appPassword });
  const access: SessionClaims = {
    scope: appPassword ? "com.atproto.appPass" : "com.atproto.access",
    sub: ACCOUNT.did,
    aud,
    iat: now,
    exp: now + ctx.settings.bluesky.accessTokenTtlSeconds,
  };
  const refresh: SessionClaims = {
    scope: "com.atproto.refresh",
    sub: ACCOUNT.did,
    aud,
    iat: now,
    exp: now + REFRESH_TTL_SECONDS,
    jti,
  };
  return {
    accessJwt: signJwt(access, ctx.bluesky.jwtSecret, "at+jwt"),
    refreshJwt: signJwt(refresh, ctx.bluesky.jwtSecret, "refresh+jwt"),
    handle: ACCOUNT.handle,
    did: ACCOUNT.did,
    email: ACCOUNT.email,
    emailConfirmed: true,
    active: true,
  };
}

function claimsOf(c: Context, ctx: SandboxContext): SessionClaims {
  const token = bearerToken(c);
  if (!token) throw new PlatformFailure(401, "AuthenticationRequired", "Authentication Required");
  const claims = verifyJwt(token, ctx.bluesky.jwtSecret);
  if (!claims) throw new PlatformFailure(401, "InvalidToken", "Token could not be verified");
  return claims;
}

/** The DID of a request's valid access token (400 ExpiredToken when it has expired, as a PDS answers). */
export function accessCaller(c: Context, ctx: SandboxContext): string {
  const claims = claimsOf(c, ctx);
  if (claims.scope === "com.atproto.refresh")
    throw new PlatformFailure(400, "InvalidToken", "Bad token scope");
  const notBefore = ctx.bluesky.accessNotBefore.get(claims.sub) ?? 0;
  if (claims.exp * 1000 <= ctx.kit.clock.now().getTime() || claims.iat * 1000 < notBefore) {
    throw new PlatformFailure(400, "ExpiredToken", "Token has expired");
  }
  return claims.sub;
}

/** The refresh token's claims; it must be live (not expired, rotated or revoked). */
export function refreshCaller(c: Context, ctx: SandboxContext): SessionClaims & { jti: string } {
  const claims = claimsOf(c, ctx);
  if (claims.scope !== "com.atproto.refresh" || !claims.jti) {
    throw new PlatformFailure(400, "InvalidToken", "Invalid token type");
  }
  if (claims.exp * 1000 <= ctx.kit.clock.now().getTime()) {
    throw new PlatformFailure(400, "ExpiredToken", "Token has expired");
  }
  if (!ctx.bluesky.refreshTokens.has(claims.jti))
    throw new PlatformFailure(400, "ExpiredToken", "Token has been revoked");
  return claims as SessionClaims & { jti: string };
}
