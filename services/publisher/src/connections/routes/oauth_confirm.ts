import { createHash, timingSafeEqual } from "node:crypto";
import { createRoute, errorResponseSpec, type ServiceApp, z } from "@app/core";
import { deleteCookie, getCookie } from "hono/cookie";
import { textField } from "../../routes/text-field.ts";
import { donePage, PAGE_HEADERS } from "../confirm-page.ts";
import {
  type ConnectFlowDeps,
  confirmConnect,
  declineConnect,
  type OAuthPlatform,
} from "../connect-flows.ts";
import { ConnectionError } from "../errors.ts";
import { confirmPath } from "./oauth_callback.ts";
import { CONFIRM_COOKIE, Connection, publicPath, wantsHtml } from "./shared.ts";

const digest = (text: string) => createHash("sha256").update(text).digest();

/** Whether the form's confirmation is the one this browser was given at the callback. */
function sameBrowser(cookie: string | undefined, confirmation: string): boolean {
  return cookie !== undefined && timingSafeEqual(digest(cookie), digest(confirmation));
}

/**
 * POST /oauth/{youtube|tiktok}/confirm: the user's answer on the callback's page. The form's
 * confirmation must match the cookie set with it (SameSite=Strict, so another site cannot post
 * the form for the user); `decision=connect` saves the connection, `cancel` drops the grant.
 */
export function registerOAuthConfirm(app: ServiceApp, deps: ConnectFlowDeps, platform: OAuthPlatform): void {
  const path = confirmPath(platform);
  const route = createRoute({
    method: "post",
    path,
    operationId: `oauth_${platform}_confirm`,
    tags: ["Connections"],
    summary: `Confirm (or cancel) connecting the ${platform === "youtube" ? "YouTube" : "TikTok"} account`,
    request: {
      body: {
        required: true,
        content: {
          "application/x-www-form-urlencoded": {
            schema: z.object({
              confirmation: textField().min(1).max(200),
              decision: z.enum(["connect", "cancel"]).default("connect"),
            }),
          },
        },
      },
    },
    responses: {
      200: {
        description: "Connected, or cancelled: a page (HTML) or `{success, connection}` (JSON)",
        content: {
          "text/html": { schema: z.string() },
          "application/json": {
            schema: z.object({ success: z.literal(true), connection: Connection.nullable() }),
          },
        },
      },
      400: errorResponseSpec("Unknown, used or expired confirmation"),
      403: errorResponseSpec("Not the browser that came back from the platform"),
    },
  });
  app.openapi(route, async (c) => {
    const { confirmation, decision } = c.req.valid("form");
    if (!sameBrowser(getCookie(c, CONFIRM_COOKIE), confirmation))
      throw new ConnectionError(
        "OAUTH_CONFIRMATION_REFUSED",
        "This confirmation belongs to another browser session; open the connect link again.",
      );
    deleteCookie(c, CONFIRM_COOKIE, { path: publicPath(deps.publicUrl, path) });
    if (decision === "cancel") {
      if (!(await declineConnect(deps, { platform, confirmation })))
        throw new ConnectionError(
          "OAUTH_STATE_INVALID",
          "This connect was already finished or has expired; nothing changed.",
        );
      if (wantsHtml(c)) return c.body(donePage("Nothing was connected."), 200, PAGE_HEADERS);
      return c.json({ success: true as const, connection: null }, 200);
    }
    const connection = await confirmConnect(deps, { platform, confirmation });
    if (wantsHtml(c))
      return c.body(
        donePage(`Connected ${connection.account_name}. You can close this page.`),
        200,
        PAGE_HEADERS,
      );
    return c.json({ success: true as const, connection }, 200);
  });
}
