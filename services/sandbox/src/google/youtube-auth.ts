import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { DEMO_GOOGLE } from "../demo.ts";
import { bearerToken } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import type { Grant } from "../kit/oauth-grants.ts";

const SCOPE = "https://www.googleapis.com/auth/";

/**
 * The scopes each method allows, as the YouTube Data API v3 discovery document lists them
 * (`resources.videos.methods.insert.scopes` and so on): `youtube.upload` allows inserting a
 * video but not reading one back; `youtube.readonly` reads but does not insert.
 */
export const UPLOAD_SCOPES = ["youtube", "youtube.force-ssl", "youtube.upload", "youtubepartner"].map(
  (name) => SCOPE + name,
);
export const VIDEO_LIST_SCOPES = ["youtube", "youtube.force-ssl", "youtube.readonly", "youtubepartner"].map(
  (name) => SCOPE + name,
);
export const CHANNEL_LIST_SCOPES = [...VIDEO_LIST_SCOPES, `${SCOPE}youtubepartner-channel-audit`];
/** videos.delete: neither `youtube.upload` nor `youtube.readonly` may delete. */
export const VIDEO_DELETE_SCOPES = ["youtube", "youtube.force-ssl", "youtubepartner"].map(
  (name) => SCOPE + name,
);

export type YouTubeCaller = { grant: Grant; channel: { id: string; title: string } | null };

/**
 * The caller of a YouTube Data API request: a live Google access token (401 `required` without
 * one, 401 `authError` for an expired, revoked or unknown one) carrying one of `scopes` (403
 * `insufficientPermissions` otherwise).
 */
export function youtubeCaller(c: Context, ctx: SandboxContext, scopes: string[]): YouTubeCaller {
  const token = bearerToken(c);
  if (!token) {
    throw new PlatformFailure(
      401,
      "required",
      "Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
    );
  }
  const check = ctx.google.grants.checkAccessToken(token);
  if (check.kind !== "valid") throw new PlatformFailure(401, "authError", "");
  if (!check.grant.scopes.some((scope) => scopes.includes(scope))) {
    throw new PlatformFailure(
      403,
      "insufficientPermissions",
      "Request had insufficient authentication scopes.",
    );
  }
  const account = Object.values(DEMO_GOOGLE.accounts).find(
    (candidate) => candidate.id === check.grant.accountId,
  );
  const channel = account?.channel ? { id: account.channel.id, title: account.channel.title } : null;
  return { grant: check.grant, channel };
}
