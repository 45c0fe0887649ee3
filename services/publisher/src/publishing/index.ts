import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { type Clock, type Logger, type Stoppable, systemClock, type TextSealer } from "@app/core";
import type { Database } from "@app/db";
import {
  createTokenVault,
  needsReconnect,
  type TokenVault,
  withAccessToken,
} from "../connections/token-vault.ts";
import type { TargetOutcome } from "../contracts/post.ts";
import type { MediaReader, Publishing } from "../contracts/publishing.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import { createGuardedLinkPreviewer, type LinkPreviewer } from "../link-preview/link-previewer.ts";
import { createMediaReader, type MediaReaderOptions } from "../media/media-reader.ts";
import { type Adapters, PlatformError } from "../platforms/index.ts";
import type { CreatorInfo } from "../platforms/tiktok/tiktok-client.ts";
import { markNeedsReconnect } from "../store/connections.ts";
import { targetOutcomes } from "../store/posts.ts";
import { cancelScheduledPost, claimDueTargets, refreshPostStatus } from "../store/targets.ts";
import { removePublishedCopy } from "./copy-removal.ts";
import { defaultRetryPolicy, type RetryPolicy } from "./retry-policy.ts";
import { defaultTuning, type PublishingTuning } from "./run-context.ts";
import { createExecutor, createRunningTargets, type Executor } from "./target-executor.ts";
import { runWorkerPool, WORKER_DEFAULTS, type WorkerOptions } from "./worker-pool.ts";

export type { WorkerOptions } from "./worker-pool.ts";

export type PublishingDeps = {
  db: Database;
  logger: Logger;
  clock?: Clock;
  storage: MediaStorage;
  adapters: Adapters;
  /** Seals connection tokens (`createConnectionSealer`, connections/sealer.ts). */
  sealer: TextSealer;
  /** SSRF guard settings for media URLs (own origins exempt, size cap, timeouts). */
  media?: MediaReaderOptions;
  retry?: Partial<RetryPolicy>;
  tuning?: Partial<PublishingTuning>;
  /** Reads pages for Bluesky link cards (default: through the media guard's fetcher). */
  linkPreviewer?: LinkPreviewer;
  /** Lease of publish-now's claims (default 60 s, extended while running). */
  leaseMs?: number;
};

/** Publishing as the API and the worker process use it. */
export type PublishingService = Publishing & {
  /** Starts this process's workers (and its sweeper); stop them to shut down cleanly. */
  startWorkers(options?: WorkerOptions): Stoppable;
  /**
   * What a TikTok connection's creator may post now (`creator_info`: privacy levels, longest
   * video). A grant found revoked on this call marks the connection `needs_reconnect` (as a
   * worker's refresh does) and throws a `reconnect` PlatformError.
   */
  tiktokCreator(connectionId: string): Promise<CreatorInfo>;
  readonly vault: TokenVault;
  readonly mediaReader: MediaReader;
};

/** The reason of the error the vault throws for a connection it marked `needs_reconnect`. */
const RECONNECT_REASON = needsReconnect("tiktok", null).reason;

const DONE = new Set(["published", "failed", "canceled"]);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A worker id unique to this process: host, pid and a random part. */
export function defaultWorkerId(): string {
  return `${hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`;
}

/** Builds publishing: publish-now, cancel and removing published copies for the API, workers for due targets. */
export function createPublishing(deps: PublishingDeps): PublishingService {
  const clock = deps.clock ?? systemClock;
  const retry = { ...defaultRetryPolicy(), ...deps.retry };
  const tuning = { ...defaultTuning(), ...deps.tuning };
  const vault = createTokenVault({ db: deps.db, sealer: deps.sealer, adapters: deps.adapters, clock });
  const reader = createMediaReader(deps.storage, deps.media);
  const running = createRunningTargets();
  const publisherDeps = {
    adapters: deps.adapters,
    vault,
    clock,
    logger: deps.logger,
    storage: deps.storage,
    reader,
    tuning,
    linkPreviewer: deps.linkPreviewer ?? createGuardedLinkPreviewer(deps.media?.trustedOrigins ?? []),
  };
  const executorFor = (
    workerId: string,
    leaseMs: number,
    overrides: Partial<PublishingTuning> = {},
  ): Executor =>
    createExecutor({
      db: deps.db,
      logger: deps.logger,
      clock,
      deps: { ...publisherDeps, tuning: { ...tuning, ...overrides } },
      retry,
      workerId,
      leaseMs,
      sealer: deps.sealer,
      running,
    });
  let nowExecutor: Executor | undefined;

  async function publishNow(postId: string, timeoutMs: number): Promise<TargetOutcome[]> {
    const deadline = clock.now().getTime() + timeoutMs;
    nowExecutor ??= executorFor(`${defaultWorkerId()}:now`, deps.leaseMs ?? 60_000);
    const executor = nowExecutor;
    const now = clock.now();
    const claimed = await claimDueTargets(deps.db, {
      workerId: executor.workerId,
      limit: 100,
      now,
      leaseUntil: new Date(now.getTime() + (deps.leaseMs ?? 60_000)),
      postId,
      excludeIds: running.ids(),
    });
    if (claimed.length > 0) await refreshPostStatus(deps.db, postId, now);
    const runs = Promise.all(claimed.map((target) => executor.run(target, { holdUntil: deadline })));
    const timer = sleep(Math.max(0, deadline - clock.now().getTime()));
    await Promise.race([runs, timer]);
    for (;;) {
      const outcomes = await targetOutcomes(deps.db, postId);
      if (outcomes.every((outcome) => DONE.has(outcome.status)) || clock.now().getTime() >= deadline)
        return outcomes;
      await sleep(Math.min(250, Math.max(0, deadline - clock.now().getTime())));
    }
  }

  return {
    publishNow,
    cancel: (postId) => cancelScheduledPost(deps.db, postId, clock.now()),
    removePublished: (copy) => removePublishedCopy({ adapters: deps.adapters, vault }, copy),
    startWorkers(options = {}) {
      const leaseMs = options.leaseMs ?? WORKER_DEFAULTS.leaseMs;
      const workerId = options.workerId ?? defaultWorkerId();
      return runWorkerPool(
        {
          db: deps.db,
          logger: deps.logger,
          clock,
          executor: executorFor(
            workerId,
            leaseMs,
            options.tiktokProcessingTimeoutMs === undefined
              ? {}
              : { tiktokProcessingTimeoutMs: options.tiktokProcessingTimeoutMs },
          ),
        },
        {
          workerId,
          leaseMs,
          concurrency: options.concurrency ?? WORKER_DEFAULTS.concurrency,
          accountShare: options.accountShare,
          reservedSlots: options.reservedSlots,
          pollIntervalMs: options.pollIntervalMs ?? WORKER_DEFAULTS.pollIntervalMs,
          sweepIntervalMs: options.sweepIntervalMs ?? WORKER_DEFAULTS.sweepIntervalMs,
        },
      );
    },
    async tiktokCreator(connectionId) {
      try {
        return await withAccessToken(vault, connectionId, ({ secrets }) =>
          deps.adapters.tiktok.creatorInfo(secrets.accessToken),
        );
      } catch (error) {
        // The vault marks a grant lost on refresh; a token TikTok itself calls revoked is marked here.
        if (
          error instanceof PlatformError &&
          error.kind === "reconnect" &&
          error.reason !== RECONNECT_REASON
        ) {
          await deps.db.transaction((tx) =>
            markNeedsReconnect(tx, connectionId, error.describe(), clock.now()),
          );
        }
        throw error;
      }
    },
    vault,
    mediaReader: reader,
  };
}
