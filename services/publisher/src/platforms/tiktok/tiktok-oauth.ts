import type { Clock } from "@app/core";
import { kindOfStatus, PlatformError, parseRetryAfter } from "../errors.ts";
import { formBody, platformFetch, readJson, stringField } from "../http.ts";
import { pkceChallenge } from "../pkce.ts";
import { expiryAfter, type OAuthClient, type OAuthTokens } from "../types.ts";

/** Where TikTok's Login Kit endpoints are and the app a user registers with TikTok for Developers. */
export type TikTokOAuthConfig = {
  /** `https://www.tiktok.com` (the sandbox: its base URL). */
  authorizeBase: string;
  /** `https://open.tiktokapis.com` (the sandbox: its base URL). */
  apiBase: string;
  clientKey: string;
  clientSecret: string;
  scopes: string[];
  timeoutMs: number;
};

export const TIKTOK_SCOPES = ["user.info.basic", "video.publish", "video.upload"];

/** TikTok Login Kit (web): authorization code with PKCE (S256); refresh tokens rotate on every refresh. */
export function createTikTokOAuthClient(config: TikTokOAuthConfig, clock: Clock): OAuthClient {
  async function token(fields: Record<string, string>): Promise<OAuthTokens> {
    const form = formBody({ ...fields, client_key: config.clientKey, client_secret: config.clientSecret });
    const res = await platformFetch("tiktok", {
      method: "POST",
      url: `${config.apiBase}/v2/oauth/token/`,
      ...form,
      timeoutMs: config.timeoutMs,
    });
    const body = await readJson(res);
    const code = stringField(body, "error");
    if (!res.ok || code) {
      const kind = code === "invalid_grant" ? "reconnect" : kindOfStatus(res.status);
      throw new PlatformError(
        "tiktok",
        kind === "unauthorized" ? "permanent" : kind,
        code ?? `http_${res.status}`,
        stringField(body, "error_description") ?? "The token request was refused.",
        { status: res.status, retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()) },
      );
    }
    const accessToken = stringField(body, "access_token");
    if (!accessToken)
      throw new PlatformError("tiktok", "transient", "bad_response", "No access_token in the answer.");
    const now = clock.now();
    return {
      accessToken,
      refreshToken: stringField(body, "refresh_token") || undefined,
      expiresAt: expiryAfter(now, body.expires_in),
      refreshExpiresAt: expiryAfter(now, body.refresh_expires_in),
      scope: stringField(body, "scope"),
    };
  }

  return {
    authorizeUrl({ state, codeVerifier, redirectUri }) {
      const url = new URL(`${config.authorizeBase}/v2/auth/authorize/`);
      url.search = new URLSearchParams({
        client_key: config.clientKey,
        scope: config.scopes.join(","),
        response_type: "code",
        redirect_uri: redirectUri,
        state,
        code_challenge: pkceChallenge(codeVerifier, "hex"),
        code_challenge_method: "S256",
      }).toString();
      return url.toString();
    },
    exchangeCode: ({ code, codeVerifier, redirectUri }) =>
      token({
        grant_type: "authorization_code",
        code,
        code_verifier: codeVerifier,
        redirect_uri: redirectUri,
      }),
    refresh: (refreshToken) => token({ grant_type: "refresh_token", refresh_token: refreshToken }),
  };
}
