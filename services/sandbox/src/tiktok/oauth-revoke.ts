import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { tiktokOAuthErrors } from "./errors.ts";
import { readAuthenticatedForm } from "./oauth-client.ts";

/**
 * `POST /v2/oauth/revoke/` ("Revoke a User Access Token"): the app's `client_key` and
 * `client_secret` and the user's access `token`; the user's grant to the app ends, so its access
 * and refresh tokens stop working. Answers 200 with `{}` ("If the request is successful, the
 * response will be empty"). A token the twin does not know is answered the same (RFC 7009; TikTok
 * does not document that case).
 */
export function registerTikTokRevoke(app: ServiceApp, ctx: SandboxContext): void {
  mountOperation(
    app,
    ctx.kit,
    {
      operation: "tiktok.oauth.revoke",
      platform: "tiktok",
      method: "post",
      path: "/v2/oauth/revoke/",
      summary: "Revoke a user access token: the app is disconnected from the user's account",
      errors: tiktokOAuthErrors,
    },
    async (c) => {
      const form = await readAuthenticatedForm(c);
      const token = form.get("token");
      if (!token) throw new PlatformFailure(400, "invalid_request", "The token parameter is required.");
      ctx.tiktok.grants.revokeGrantOfAccessToken(token);
      return c.json({}, 200, { "Cache-Control": "no-store" });
    },
  );
}
