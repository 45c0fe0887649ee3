import type { Clock, Logger } from "@app/core";
import type { TokenVault } from "../connections/token-vault.ts";
import type { MediaReader } from "../contracts/publishing.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import type { LinkPreviewer } from "../link-preview/link-previewer.ts";
import type { StagedMedia } from "../media/staged-media.ts";
import type { Adapters } from "../platforms/index.ts";
import type { ClaimedTarget } from "../store/targets.ts";

/** What a platform publisher needs besides the target. */
export type PlatformPublisherDeps = {
  adapters: Adapters;
  vault: TokenVault;
  clock: Clock;
  logger: Logger;
  storage: MediaStorage;
  reader: MediaReader;
  tuning: PublishingTuning;
  /** Reads a link's page for a Bluesky card. */
  linkPreviewer?: LinkPreviewer;
};

/** Sizes and intervals of the publishing steps (defaults in {@link defaultTuning}). */
export type PublishingTuning = {
  /** YouTube chunk size: a multiple of 256 KiB. */
  youtubeChunkBytes: number;
  /** Preferred TikTok chunk size (5–64 MB). */
  tiktokChunkBytes: number;
  /** How long to wait between TikTok status polls. */
  statusPollMs: number;
  /**
   * How long a TikTok post may stay processing once its media is in (uploaded or handed over):
   * past this the target fails with `PROCESSING_TIMEOUT` instead of being polled without end.
   */
  tiktokProcessingTimeoutMs: number;
};

export const defaultTuning = (): PublishingTuning => ({
  youtubeChunkBytes: 8 * 1024 * 1024,
  tiktokChunkBytes: 10 * 1024 * 1024,
  statusPollMs: 10_000,
  tiktokProcessingTimeoutMs: 60 * 60_000,
});

/** One turn on one claimed target. */
export type TargetRun = {
  target: ClaimedTarget;
  /** Saves the platform handle while the claim is held; throws {@link LostClaim} when it is not. */
  saveHandle(handle: Record<string, unknown>): Promise<void>;
  /** Throws {@link LostClaim} when the claim was lost (checked between chunks). */
  checkClaim(): void;
  /** Stages the post's media item `index` (see stageMedia). */
  media(index: number): Promise<StagedMedia>;
  /**
   * Tells the history that a chunk brought the platform's copy from `before` to `after` of
   * `total` bytes (recorded at most once per tenth: `crossesProgressMark`). Never fails the run.
   */
  progress(before: number, after: number, total: number): Promise<void>;
};

/** What a publisher's turn came to: published, or wait and poll the platform again. */
export type StepResult =
  | { kind: "published"; platformPostId: string; url: string | null }
  | { kind: "poll"; afterMs: number };

/** The claim on a target was lost (its lease ran out and another worker may hold it): stop at once. */
export class LostClaim extends Error {
  constructor(targetId: string) {
    super(`The claim on target ${targetId} was lost.`);
    this.name = "LostClaim";
  }
}
