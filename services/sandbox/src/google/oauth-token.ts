import type { ServiceApp } from "@app/core";
import { requestHeader } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { DEMO_GOOGLE } from "../demo.ts";
import { readForm } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { type Grant, pkceS256 } from "../kit/oauth-grants.ts";
import { mountOperation } from "../kit/operations.ts";
import { googleOAuthErrors } from "./errors.ts";

const invalidGrant = (description: string) => new PlatformFailure(400, "invalid_grant", description);

/** Client authentication: the demo client's id and secret, in the form or as HTTP Basic. */
function authenticateClient(form: URLSearchParams, authorization: string | undefined): void {
  let clientId = form.get("client_id");
  let clientSecret = form.get("client_secret");
  const basic = authorization ? /^Basic\s+(\S+)$/i.exec(authorization) : null;
  if (basic?.[1]) {
    const [id, secret] = Buffer.from(basic[1], "base64").toString("utf8").split(":");
    clientId = decodeURIComponent(id ?? "");
    clientSecret = decodeURIComponent(secret ?? "");
  }
  if (!clientId)
    throw new PlatformFailure(400, "invalid_request", "Could not determine client ID from request.");
  if (clientId !== DEMO_GOOGLE.clientId) {
    throw new PlatformFailure(401, "invalid_client", "The OAuth client was not found.");
  }
  if (clientSecret !== DEMO_GOOGLE.clientSecret)
    throw new PlatformFailure(401, "invalid_client", "Unauthorized");
}

function tokenResponse(ctx: SandboxContext, grant: Grant, refreshToken: string | undefined) {
  const ttl = ctx.settings.google.accessTokenTtlSeconds;
  return {
    access_token: ctx.google.grants.issueAccessToken(grant, "ya29.", ttl),
    expires_in: ttl,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    scope: grant.scopes.join(" "),
    token_type: "Bearer",
  };
}

function exchangeCode(ctx: SandboxContext, form: URLSearchParams) {
  const value = form.get("code");
  if (!value) throw new PlatformFailure(400, "invalid_request", "Missing required parameter: code");
  const code = ctx.google.grants.redeemCode(value);
  if (!code) throw invalidGrant("Malformed auth code.");
  if (form.get("redirect_uri") !== code.redirectUri) {
    throw new PlatformFailure(400, "redirect_uri_mismatch", "Bad Request");
  }
  if (code.codeChallenge) {
    const verifier = form.get("code_verifier");
    if (!verifier) throw invalidGrant("Missing code verifier.");
    const expected = code.codeChallengeMethod === "S256" ? pkceS256(verifier) : verifier;
    if (expected !== code.codeChallenge) throw invalidGrant("Invalid code verifier.");
  }
  const firstConsent = !ctx.google.grants.existingGrant(code.clientId, code.accountId);
  const grant = ctx.google.grants.grant(code.clientId, code.accountId, code.scopes);
  // Google sends a refresh token for offline access on the first consent, or when prompt=consent asked again.
  const refreshToken =
    code.offline && (firstConsent || code.promptConsent)
      ? ctx.google.grants.issueRefreshToken(grant, "1//0g", null)
      : undefined;
  return tokenResponse(ctx, grant, refreshToken);
}

function refresh(ctx: SandboxContext, form: URLSearchParams) {
  const value = form.get("refresh_token");
  if (!value) throw new PlatformFailure(400, "invalid_request", "Missing required parameter: refresh_token");
  const grant = ctx.google.grants.grantOfRefreshToken(value);
  if (!grant) throw invalidGrant("Token has been expired or revoked.");
  if (grant.clientId !== DEMO_GOOGLE.clientId)
    throw new PlatformFailure(401, "unauthorized_client", "Unauthorized");
  const rotated = ctx.google.rotateRefreshTokens
    ? ctx.google.grants.issueRefreshToken(grant, "1//0g", null, value)
    : undefined;
  return tokenResponse(ctx, grant, rotated);
}

/** `POST /token`: Google's token endpoint (authorization_code and refresh_token grants). */
export function registerGoogleToken(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "google.oauth.token",
      platform: "google",
      method: "post",
      path: "/token",
      summary: "Exchange an authorization code, or refresh an access token",
      description:
        "Form fields as at oauth2.googleapis.com/token. A refresh token comes only with access_type=offline, on the first consent or with prompt=consent; refreshes return none unless rotation is switched on.",
      errors: googleOAuthErrors,
    },
    async (c) => {
      const form = await readForm(c);
      authenticateClient(form, requestHeader(c, "authorization"));
      const grantType = form.get("grant_type");
      if (grantType === "authorization_code")
        return c.json(exchangeCode(ctx, form), 200, { "Cache-Control": "no-store" });
      if (grantType === "refresh_token")
        return c.json(refresh(ctx, form), 200, { "Cache-Control": "no-store" });
      throw new PlatformFailure(
        400,
        "unsupported_grant_type",
        `Invalid grant_type: ${(grantType ?? "").slice(0, 64)}`,
      );
    },
  );
}
