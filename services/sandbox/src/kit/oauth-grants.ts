import { createHash, randomBytes } from "node:crypto";
import type { Clock } from "@app/core";

/** What an authorisation code stands for until it is exchanged (once). */
export type AuthorizationCode = {
  clientId: string;
  accountId: string;
  redirectUri: string;
  scopes: string[];
  /** PKCE (RFC 7636): the challenge sent to the authorize page, checked against the verifier. */
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  /** Google: `access_type=offline` asked for a refresh token. */
  offline: boolean;
  /** Google: `prompt=consent` forced a fresh consent (which issues a refresh token again). */
  promptConsent: boolean;
  expiresAt: Date;
};

/** A user's consent to a client: what its tokens allow. */
export type Grant = {
  id: string;
  clientId: string;
  accountId: string;
  scopes: string[];
  revoked: boolean;
};

export type AccessCheck =
  | { kind: "valid"; grant: Grant }
  | { kind: "expired"; grant: Grant }
  | { kind: "revoked" }
  | { kind: "unknown" };

type StoredToken = { grantId: string; expiresAt: Date | null };

const hashOf = (secret: string) => createHash("sha256").update(secret).digest("hex");
const randomToken = (prefix: string) => `${prefix}${randomBytes(32).toString("base64url")}`;

/**
 * Authorisation codes, grants and tokens of one OAuth server, in memory. Only SHA-256 hashes of
 * codes and tokens are kept, so nothing here can leak a usable secret.
 */
export class OAuthGrants {
  private codes = new Map<string, AuthorizationCode>();
  private grants = new Map<string, Grant>();
  private accessTokens = new Map<string, StoredToken>();
  private refreshTokens = new Map<string, StoredToken>();

  constructor(private readonly clock: Clock) {}

  /** A single-use authorisation code for `code`; it lives for ten minutes at most. */
  issueCode(prefix: string, code: Omit<AuthorizationCode, "expiresAt">): string {
    const value = randomToken(prefix);
    this.codes.set(hashOf(value), { ...code, expiresAt: new Date(this.clock.now().getTime() + 600_000) });
    return value;
  }

  /** The code's content, once: a second exchange, or one after expiry, finds nothing. */
  redeemCode(value: string): AuthorizationCode | undefined {
    const key = hashOf(value);
    const code = this.codes.get(key);
    this.codes.delete(key);
    if (!code || code.expiresAt <= this.clock.now()) return undefined;
    return code;
  }

  /** The live grant of an account to a client, if it consented before. */
  existingGrant(clientId: string, accountId: string): Grant | undefined {
    for (const grant of this.grants.values()) {
      if (grant.clientId === clientId && grant.accountId === accountId && !grant.revoked) return grant;
    }
    return undefined;
  }

  /** Records a consent; a new consent by the same account replaces the scopes of its earlier one. */
  grant(clientId: string, accountId: string, scopes: string[]): Grant {
    const existing = this.existingGrant(clientId, accountId);
    if (existing) {
      existing.scopes = [...new Set(scopes)];
      return existing;
    }
    const grant: Grant = { id: randomToken("grt_"), clientId, accountId, scopes, revoked: false };
    this.grants.set(grant.id, grant);
    return grant;
  }

  issueAccessToken(grant: Grant, prefix: string, ttlSeconds: number): string {
    const token = randomToken(prefix);
    const expiresAt = new Date(this.clock.now().getTime() + ttlSeconds * 1000);
    this.accessTokens.set(hashOf(token), { grantId: grant.id, expiresAt });
    return token;
  }

  /** A refresh token for the grant; with `replacing`, that older token stops working (rotation). */
  issueRefreshToken(grant: Grant, prefix: string, ttlSeconds: number | null, replacing?: string): string {
    if (replacing) this.refreshTokens.delete(hashOf(replacing));
    const token = randomToken(prefix);
    const expiresAt = ttlSeconds === null ? null : new Date(this.clock.now().getTime() + ttlSeconds * 1000);
    this.refreshTokens.set(hashOf(token), { grantId: grant.id, expiresAt });
    return token;
  }

  /** The grant behind a live refresh token; undefined for an unknown, rotated, expired or revoked one. */
  grantOfRefreshToken(token: string): Grant | undefined {
    const stored = this.refreshTokens.get(hashOf(token));
    if (!stored || (stored.expiresAt && stored.expiresAt <= this.clock.now())) return undefined;
    const grant = this.grants.get(stored.grantId);
    return grant && !grant.revoked ? grant : undefined;
  }

  /** Seconds until a refresh token expires (null: it does not). */
  refreshTokenTtl(token: string): number | null {
    const stored = this.refreshTokens.get(hashOf(token));
    if (!stored?.expiresAt) return null;
    return Math.max(0, Math.round((stored.expiresAt.getTime() - this.clock.now().getTime()) / 1000));
  }

  checkAccessToken(token: string): AccessCheck {
    const stored = this.accessTokens.get(hashOf(token));
    if (!stored) return { kind: "unknown" };
    const grant = this.grants.get(stored.grantId);
    if (!grant || grant.revoked) return { kind: "revoked" };
    if (stored.expiresAt && stored.expiresAt <= this.clock.now()) return { kind: "expired", grant };
    return { kind: "valid", grant };
  }

  /**
   * Revokes the grant behind an access token (live or expired): its access and refresh tokens
   * stop working. False when the token is unknown or its grant already revoked.
   */
  revokeGrantOfAccessToken(token: string): boolean {
    const stored = this.accessTokens.get(hashOf(token));
    const grant = stored ? this.grants.get(stored.grantId) : undefined;
    if (!grant || grant.revoked) return false;
    grant.revoked = true;
    return true;
  }

  /** Makes every access token of the matching grants expire now (their refresh tokens still work). */
  expireAccessTokens(accountId?: string): number {
    let expired = 0;
    const now = this.clock.now();
    for (const stored of this.accessTokens.values()) {
      const grant = this.grants.get(stored.grantId);
      if (accountId !== undefined && grant?.accountId !== accountId) continue;
      stored.expiresAt = new Date(now.getTime() - 1000);
      expired += 1;
    }
    return expired;
  }

  /** Revokes the matching grants: their access and refresh tokens stop working (`invalid_grant`). */
  revokeGrants(accountId?: string): number {
    let revoked = 0;
    for (const grant of this.grants.values()) {
      if (grant.revoked || (accountId !== undefined && grant.accountId !== accountId)) continue;
      grant.revoked = true;
      revoked += 1;
    }
    return revoked;
  }
}

/** RFC 7636 S256: BASE64URL(SHA-256(verifier)) without padding. */
export function pkceS256(verifier: string): string {
  return createHash("sha256").update(verifier).digest("base64url");
}
