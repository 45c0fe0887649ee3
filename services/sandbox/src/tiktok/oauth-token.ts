import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import type { Grant } from "../kit/oauth-grants.ts";
import { mountOperation } from "../kit/operations.ts";
import { tiktokOAuthErrors } from "./errors.ts";
import { readAuthenticatedForm } from "./oauth-client.ts";
import { tiktokPkceChallenge } from "./pkce.ts";

function tokens(ctx: SandboxContext, grant: Grant, replacing?: string) {
  const { accessTokenTtlSeconds, refreshTokenTtlSeconds } = ctx.settings.tiktok;
  return {
    open_id: grant.accountId,
    scope: grant.scopes.join(","),
    access_token: ctx.tiktok.grants.issueAccessToken(grant, "act.", accessTokenTtlSeconds),
    expires_in: accessTokenTtlSeconds,
    // Refresh tokens rotate: each refresh returns a new one, valid for the full lifetime, and the
    // previous one stops working ("Refresh a User Access Token").
    refresh_token: ctx.tiktok.grants.issueRefreshToken(grant, "rft.", refreshTokenTtlSeconds, replacing),
    refresh_expires_in: refreshTokenTtlSeconds,
    token_type: "Bearer",
  };
}

function exchangeCode(ctx: SandboxContext, form: URLSearchParams) {
  const code = ctx.tiktok.grants.redeemCode(form.get("code") ?? "");
  if (!code)
    throw new PlatformFailure(400, "invalid_grant", "Authorization code is expired or was already used.");
  if (form.get("redirect_uri") !== code.redirectUri) {
    throw new PlatformFailure(
      400,
      "invalid_request",
      "redirect_uri does not match the one used to authorize.",
    );
  }
  if (code.codeChallenge) {
    const verifier = form.get("code_verifier") ?? "";
    if (tiktokPkceChallenge(verifier) !== code.codeChallenge) {
      throw new PlatformFailure(400, "invalid_request", "Code verifier or code challenge is invalid.");
    }
  }
  return tokens(ctx, ctx.tiktok.grants.grant(code.clientId, code.accountId, code.scopes));
}

function refresh(ctx: SandboxContext, form: URLSearchParams) {
  const value = form.get("refresh_token") ?? "";
  const grant = ctx.tiktok.grants.grantOfRefreshToken(value);
  if (!grant) throw new PlatformFailure(400, "invalid_grant", "Refresh token is invalid or expired.");
  return tokens(ctx, grant, value);
}

/** `POST /v2/oauth/token/`: TikTok's token endpoint (authorization_code with PKCE, rotating refresh_token). */
export function registerTikTokToken(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.oauth.token",
      platform: "tiktok",
      method: "post",
      path: "/v2/oauth/token/",
      summary: "Exchange a code (PKCE S256 checked) or refresh (the refresh token rotates)",
      errors: tiktokOAuthErrors,
    },
    async (c) => {
      const form = await readAuthenticatedForm(c);
      const grantType = form.get("grant_type");
      if (grantType === "authorization_code")
        return c.json(exchangeCode(ctx, form), 200, { "Cache-Control": "no-store" });
      if (grantType === "refresh_token")
        return c.json(refresh(ctx, form), 200, { "Cache-Control": "no-store" });
      throw new PlatformFailure(
        400,
        "unsupported_grant_type",
        "grant_type must be authorization_code or refresh_token.",
      );
    },
  );
}
