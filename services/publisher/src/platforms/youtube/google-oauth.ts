import type { Clock } from "@app/core";
import { kindOfStatus, PlatformError, parseRetryAfter } from "../errors.ts";
import { formBody, platformFetch, readJson, stringField } from "../http.ts";
import { pkceChallenge } from "../pkce.ts";
import { expiryAfter, type OAuthClient, type OAuthTokens } from "../types.ts";

/** Where Google's OAuth endpoints are and the client a user registers in Google Cloud. */
export type GoogleOAuthConfig = {
  /** `https://accounts.google.com` (the sandbox: its base URL). */
  authorizeBase: string;
  /** `https://oauth2.googleapis.com` (the sandbox: its base URL). */
  tokenBase: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  timeoutMs: number;
};

export const YOUTUBE_UPLOAD_SCOPE = "https://www.googleapis.com/auth/youtube.upload";
export const YOUTUBE_READONLY_SCOPE = "https://www.googleapis.com/auth/youtube.readonly";
/**
 * One of the scopes `videos.delete` takes (`youtube`, `youtube.force-ssl`, `youtubepartner`;
 * developers.google.com/youtube/v3/docs/videos/delete): neither the upload nor the read scope may
 * delete. A connection made before it was asked for cannot delete until it is connected again.
 */
export const YOUTUBE_FORCE_SSL_SCOPE = "https://www.googleapis.com/auth/youtube.force-ssl";

/** Google OAuth 2.0 for installed/web apps: authorization code with PKCE, offline access, refresh. */
export function createGoogleOAuthClient(config: GoogleOAuthConfig, clock: Clock): OAuthClient {
  async function token(fields: Record<string, string>): Promise<OAuthTokens> {
    const form = formBody({ ...fields, client_id: config.clientId, client_secret: config.clientSecret });
    const res = await platformFetch("youtube", {
      method: "POST",
      url: `${config.tokenBase}/token`,
      ...form,
      timeoutMs: config.timeoutMs,
    });
    const body = await readJson(res);
    if (!res.ok) {
      const code = stringField(body, "error") ?? `http_${res.status}`;
      const kind = code === "invalid_grant" ? "reconnect" : kindOfStatus(res.status);
      throw new PlatformError(
        "youtube",
        kind === "unauthorized" ? "permanent" : kind,
        code,
        stringField(body, "error_description") ?? "The token request was refused.",
        {
          status: res.status,
          retryAfterMs: parseRetryAfter(res.headers.get("retry-after"), clock.now()),
        },
      );
    }
    const accessToken = stringField(body, "access_token");
    if (!accessToken)
      throw new PlatformError("youtube", "transient", "bad_response", "No access_token in the answer.");
    return {
      accessToken,
      refreshToken: stringField(body, "refresh_token") || undefined,
      expiresAt: expiryAfter(clock.now(), body.expires_in),
      scope: stringField(body, "scope"),
    };
  }

  return {
    authorizeUrl({ state, codeVerifier, redirectUri }) {
      const url = new URL(`${config.authorizeBase}/o/oauth2/v2/auth`);
      url.search = new URLSearchParams({
        client_id: config.clientId,
        redirect_uri: redirectUri,
        response_type: "code",
        scope: config.scopes.join(" "),
        access_type: "offline",
        prompt: "consent",
        include_granted_scopes: "true",
        state,
        code_challenge: pkceChallenge(codeVerifier, "base64url"),
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
