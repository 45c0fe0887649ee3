import type { MemoryFixedWindow } from "@app/edge";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { DEMO_TIKTOK, type TikTokCreator } from "../demo.ts";
import { bearerToken } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import type { Grant } from "../kit/oauth-grants.ts";
import { tokenFingerprint } from "../kit/request-log.ts";

export type TikTokCaller = { grant: Grant; creator: TikTokCreator; token: string };

/**
 * The creator behind a TikTok API call: a live user access token (401 `access_token_invalid`
 * otherwise, expired included) that carries one of `scopes` (401 `scope_not_authorized`).
 */
export function tiktokCaller(c: Context, ctx: SandboxContext, scopes: string[]): TikTokCaller {
  const token = bearerToken(c);
  const check = token ? ctx.tiktok.grants.checkAccessToken(token) : { kind: "unknown" as const };
  if (!token || check.kind !== "valid") {
    throw new PlatformFailure(
      401,
      "access_token_invalid",
      "The access token is invalid or not found in the request.",
    );
  }
  if (!check.grant.scopes.some((scope) => scopes.includes(scope))) {
    throw new PlatformFailure(
      401,
      "scope_not_authorized",
      `The user did not authorize the scope required for completing this request (${scopes.join(" or ")}).`,
    );
  }
  const creator = Object.values(DEMO_TIKTOK.creators).find(
    (candidate) => candidate.openId === check.grant.accountId,
  );
  if (!creator)
    throw new PlatformFailure(401, "access_token_invalid", "The access token's user no longer exists.");
  return { grant: check.grant, creator, token };
}

/**
 * Counts a call against an endpoint's per-token limit (one of the context's `limits`): past it
 * 429 `rate_limit_exceeded` (TikTok sends no Retry-After and no rate-limit headers).
 */
export function takeTikTokRate(limiter: MemoryFixedWindow, caller: TikTokCaller): void {
  if (!limiter.take(tokenFingerprint(caller.token)).allowed) {
    throw new PlatformFailure(
      429,
      "rate_limit_exceeded",
      "The API rate limit was exceeded. Please try again later.",
    );
  }
}
