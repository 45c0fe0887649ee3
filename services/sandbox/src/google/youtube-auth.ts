import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { DEMO_GOOGLE } from "../demo.ts";
import { bearerToken } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import type { Grant } from "../kit/oauth-grants.ts";

/** Scopes under which videos.insert is allowed. */
export const UPLOAD_SCOPES = [
  "https://www.googleapis.com/auth/youtube.upload",
  "https://www.googleapis.com/auth/youtube",
  "https://www.googleapis.com/auth/youtube.force-ssl",
];

/** Scopes under which channels.list and videos.list are allowed. */
export const READ_SCOPES = [...UPLOAD_SCOPES, "https://www.googleapis.com/auth/youtube.readonly"];

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
