import { randomBytes } from "node:crypto";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { isVerifiedUrl } from "./media-pull.ts";
import type { TikTokPost } from "./state.ts";
import type { TikTokCaller } from "./tiktok-auth.ts";

/** Most inbox uploads a creator may have pending in 24 hours. */
const PENDING_SHARE_LIMIT = 5;
const DAY_MS = 86_400_000;

/** A new post's id, shaped like TikTok's (`v_pub_file~v2-1.…`, `p_pub_url~v2.…`). */
export function newPublishId(kind: "v_pub_file" | "v_pub_url" | "p_pub_url"): string {
  const digits = BigInt(`0x${randomBytes(8).toString("hex")}`)
    .toString()
    .padStart(19, "0");
  return `${kind}~v2-1.${digits}`;
}

/** A post as init creates it, with the outcome and processing settings in force now. */
export function newPost(
  ctx: SandboxContext,
  caller: TikTokCaller,
  fields: Pick<TikTokPost, "publishId" | "mode" | "mediaType" | "source" | "postInfo"> & Partial<TikTokPost>,
): TikTokPost {
  return {
    openId: caller.creator.openId,
    clientKey: caller.grant.clientId,
    plan: null,
    uploadToken: null,
    digest: null,
    fetched: [],
    pullFailure: null,
    outcome: ctx.tiktok.outcome,
    pollsSinceTransfer: 0,
    processingPolls: ctx.tiktok.processingPolls,
    createdAt: ctx.kit.clock.now().toISOString(),
    completedAt: null,
    publicPostId: null,
    ...fields,
  };
}

/** Refuses a URL outside the app's verified prefixes (403 `url_ownership_unverified`). */
export function requireVerifiedUrl(ctx: SandboxContext, url: unknown, field: string): string {
  if (typeof url !== "string" || url === "") {
    throw new PlatformFailure(400, "invalid_params", `${field} must be a URL.`);
  }
  if (!isVerifiedUrl(url, ctx.tiktok.verifiedUrlPrefixes)) {
    throw new PlatformFailure(
      403,
      "url_ownership_unverified",
      "The URL's domain or URL prefix is not verified for this app. Verify it in the developer portal first.",
    );
  }
  return url;
}

/** Refuses an inbox upload when the creator has 5 pending in the last 24 hours. */
export function checkPendingShares(ctx: SandboxContext, caller: TikTokCaller): void {
  const since = ctx.kit.clock.now().getTime() - DAY_MS;
  const pending = [...ctx.tiktok.posts.values()].filter(
    (post) =>
      post.openId === caller.creator.openId &&
      post.mode === "MEDIA_UPLOAD" &&
      Date.parse(post.createdAt) > since,
  );
  if (pending.length >= PENDING_SHARE_LIMIT) {
    throw new PlatformFailure(
      403,
      "spam_risk_too_many_pending_share",
      "The user has 5 pending inbox shares in the last 24 hours.",
    );
  }
}
