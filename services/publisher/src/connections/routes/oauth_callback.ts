import { createRoute, errorResponseSpec, type ServiceApp, z } from "@app/core";
import { setCookie } from "hono/cookie";
import { textField } from "../../routes/text-field.ts";
import { confirmPage, PAGE_HEADERS } from "../confirm-page.ts";
import { type ConnectFlowDeps, callbackPath, grantConnect, type OAuthPlatform } from "../connect-flows.ts";
import { ConnectionError } from "../errors.ts";
import { CONFIRM_COOKIE, publicPath, wantsHtml } from "./shared.ts";

export const confirmPath = (platform: OAuthPlatform) => `/oauth/${platform}/confirm`;

const PendingGrant = z
  .object({
    confirmation: z.string(),
    expiresIn: z.number().int(),
    confirmUrl: z.string(),
    publisherAccount: z.object({ id: z.string(), name: z.string() }),
    platformAccount: z.object({ id: z.string(), name: z.string() }),
  })
  .openapi("PendingGrant");

/**
 * GET /oauth/{youtube|tiktok}/callback: where the platform sends the user back. The code is traded
 * for tokens, but nothing is connected until the user confirms, on the page this returns, which
 * publisher account the platform account joins (a program asking for JSON gets the same facts).
 */
export function registerOAuthCallback(app: ServiceApp, deps: ConnectFlowDeps, platform: OAuthPlatform): void {
  const route = createRoute({
    method: "get",
    path: callbackPath(platform),
    operationId: `oauth_${platform}_callback`,
    tags: ["Connections"],
    summary: `Where ${platform === "youtube" ? "Google" : "TikTok"} sends the user back after consent`,
    request: {
      query: z.object({
        state: textField().optional(),
        code: textField().optional(),
        error: textField().optional(),
        error_description: textField().optional(),
      }),
    },
    responses: {
      200: {
        description: "Consent traded for tokens: the page asking to confirm (HTML), or its facts (JSON)",
        content: { "text/html": { schema: z.string() }, "application/json": { schema: PendingGrant } },
      },
      400: errorResponseSpec("Denied, or an unknown, used or expired state"),
      502: errorResponseSpec("The platform did not answer"),
    },
  });
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    if (query.error) throw new ConnectionError("OAUTH_DENIED", `The platform answered ${query.error}.`);
    if (!query.state || !query.code)
      throw new ConnectionError("OAUTH_STATE_INVALID", "The callback needs code and state.");
    const grant = await grantConnect(deps, { platform, state: query.state, code: query.code });
    const path = publicPath(deps.publicUrl, confirmPath(platform));
    setCookie(c, CONFIRM_COOKIE, grant.confirmation, {
      path,
      httpOnly: true,
      sameSite: "Strict",
      secure: deps.publicUrl.startsWith("https:"),
      maxAge: grant.expiresIn,
    });
    if (wantsHtml(c)) return c.body(confirmPage(grant, path), 200, PAGE_HEADERS);
    const { confirmation, expiresIn, publisherAccount, platformAccount } = grant;
    const confirmUrl = `${deps.publicUrl.replace(/\/$/, "")}${confirmPath(platform)}`;
    return c.json({ confirmation, expiresIn, confirmUrl, publisherAccount, platformAccount }, 200, {
      "cache-control": "no-store",
      "referrer-policy": "no-referrer",
    });
  });
}
