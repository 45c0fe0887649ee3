import { requestHeader } from "@app/core";
import type { Context } from "hono";
import { DEMO_TIKTOK } from "../demo.ts";
import { readBodyText } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";

/**
 * The form of a call to TikTok's OAuth endpoints (`/v2/oauth/token/`, `/v2/oauth/revoke/`), with
 * the app authenticated: the body must be `application/x-www-form-urlencoded` (400
 * `invalid_request`), and carry the app's `client_key` and `client_secret` (401 `invalid_client`).
 */
export async function readAuthenticatedForm(c: Context): Promise<URLSearchParams> {
  if (!(requestHeader(c, "content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
    throw new PlatformFailure(
      400,
      "invalid_request",
      "Content-Type must be application/x-www-form-urlencoded.",
    );
  }
  const form = new URLSearchParams(await readBodyText(c));
  if (
    form.get("client_key") !== DEMO_TIKTOK.clientKey ||
    form.get("client_secret") !== DEMO_TIKTOK.clientSecret
  ) {
    throw new PlatformFailure(401, "invalid_client", "Client key or secret is incorrect.");
  }
  return form;
}
