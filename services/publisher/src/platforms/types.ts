/** OAuth tokens as publishing keeps them (sealed in `connections.tokens`). Times are ISO 8601. */
export type OAuthTokens = {
  accessToken: string;
  refreshToken?: string;
  expiresAt?: string;
  refreshExpiresAt?: string;
  scope?: string;
};

/** One platform's OAuth 2.0 authorization-code flow (with PKCE) and refresh grant. */
export interface OAuthClient {
  /**
   * The page a user is sent to, to grant access. The PKCE challenge is derived from `codeVerifier`
   * the way the platform documents it (Google: RFC 7636 base64url; TikTok: hex).
   */
  authorizeUrl(input: { state: string; codeVerifier: string; redirectUri: string }): string;
  /** Trades an authorization code for tokens. */
  exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<OAuthTokens>;
  /**
   * A fresh access token for a refresh token. A platform that rotates refresh tokens returns the
   * new one; one that does not leaves `refreshToken` undefined. `invalid_grant` throws a
   * `reconnect` PlatformError.
   */
  refresh(refreshToken: string): Promise<OAuthTokens>;
}

/** An expiry `expiresInSeconds` after `now`, as ISO 8601, or undefined. */
export function expiryAfter(now: Date, expiresInSeconds: unknown): string | undefined {
  return typeof expiresInSeconds === "number" && Number.isFinite(expiresInSeconds)
    ? new Date(now.getTime() + expiresInSeconds * 1000).toISOString()
    : undefined;
}
