import type { MediaDigest } from "../kit/digest.ts";
import type { OAuthGrants } from "../kit/oauth-grants.ts";
import type { ChunkPlan } from "./chunk-plan.ts";
import type { PostInfo } from "./post-info.ts";

export type PublishStatus =
  | "PROCESSING_UPLOAD"
  | "PROCESSING_DOWNLOAD"
  | "SEND_TO_USER_INBOX"
  | "PUBLISH_COMPLETE"
  | "FAILED";

/** How a post ends once its media is in: set per post from `/_sandbox/settings` at init. */
export type PostOutcome = { kind: "complete" } | { kind: "fail"; reason: string } | { kind: "stuck" };

/** One photo of a carousel, as fetched from its URL. */
export type PulledMedia = { url: string; bytes: number; sha256: string; contentType: string };

/** A post from init to its final status. */
export type TikTokPost = {
  publishId: string;
  openId: string;
  clientKey: string;
  mode: "DIRECT_POST" | "MEDIA_UPLOAD";
  mediaType: "VIDEO" | "PHOTO";
  source: "FILE_UPLOAD" | "PULL_FROM_URL";
  postInfo: PostInfo | null;
  /** FILE_UPLOAD: the declared plan, the upload token and the bytes so far. */
  plan: ChunkPlan | null;
  uploadToken: string | null;
  digest: MediaDigest | null;
  /** PULL_FROM_URL: what was fetched (a video, or each photo). */
  fetched: PulledMedia[];
  /** Set when the pull failed: the post is FAILED with this reason. */
  pullFailure: string | null;
  outcome: PostOutcome;
  /** Status fetches answered since the media arrived. */
  pollsSinceTransfer: number;
  processingPolls: number;
  createdAt: string;
  completedAt: string | null;
  publicPostId: string | null;
};

export type TikTokState = {
  grants: OAuthGrants;
  posts: Map<string, TikTokPost>;
  /** URL prefixes the demo app "verified" for PULL_FROM_URL (changeable at run time). */
  verifiedUrlPrefixes: string[];
  /** Applied to posts initialised from now on (changeable at run time). */
  outcome: PostOutcome;
  processingPolls: number;
};
