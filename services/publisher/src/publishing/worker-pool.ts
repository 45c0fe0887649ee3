import type { Clock, Logger, Stoppable } from "@app/core";
import type { Database } from "@app/db";
import { markClaimedPostsPublishing, releaseExpiredClaims, withAsyncCommit } from "../store/targets.ts";
import { claimFairShare } from "./fair-claim.ts";
import { DEFAULT_ACCOUNT_SHARE, DEFAULT_RESERVED_SLOTS, slotShare } from "./fair-share.ts";
import type { Executor } from "./target-executor.ts";

/**
 * How a process's workers run unless told otherwise (and the configuration's defaults). 16 slots:
 * a Bluesky text post is mostly waiting (the platform, the handle save's disk flush), and group
 * commit flushes the handles of every target in flight at once. Two processes at 4 kept up with
 * 167 targets/s only without anything else on the machine (bench/publisher.ts).
 */
export const WORKER_DEFAULTS = {
  concurrency: 16,
  pollIntervalMs: 1_000,
  leaseMs: 60_000,
  sweepIntervalMs: 15_000,
} as const;

/** How a process's publishing workers run. */
export type WorkerOptions = {
  /** This process's id in `claimed_by` (unique per process: host, pid and a random part by default). */
  workerId?: string;
  /** Targets run at once in this process. */
  concurrency?: number;
  /**
   * The fraction of this process's slots one account may hold while other accounts have due
   * targets (default a quarter; at least one slot). See fair-share.ts.
   */
  accountShare?: number;
  /**
   * Slots kept for accounts that have nothing running here: an account that runs a target never
   * takes one, whatever its share (default 1).
   */
  reservedSlots?: number;
  /** How long to wait before looking again when nothing was due. */
  pollIntervalMs?: number;
  /** How long a claim lasts without a heartbeat (it is extended every third of this). */
  leaseMs?: number;
  /** How often the sweeper hands back claims whose lease ran out (false: no sweeper in this process). */
  sweepIntervalMs?: number | false;
  /**
   * How long a TikTok post may stay processing before its target fails (default: publishing's
   * tuning, one hour). A worker setting so that the worker process and the API's workers both
   * read it from `PUBLISHER_TIKTOK_PROCESSING_TIMEOUT_MS`.
   */
  tiktokProcessingTimeoutMs?: number;
};

export type ResolvedWorkerOptions = Required<
  Omit<WorkerOptions, "sweepIntervalMs" | "tiktokProcessingTimeoutMs" | "accountShare" | "reservedSlots">
> & {
  sweepIntervalMs: number | false;
  accountShare?: number;
  reservedSlots?: number;
};

/**
 * The worker loop: claims due targets into its free slots, shared between accounts (an account
 * holds at most its share of the slots while others have due targets, and an account that runs a
 * target never takes the reserved ones: see fair-share.ts and fair-claim.ts), runs each on the executor, and sleeps
 * `pollIntervalMs` when nothing was due or no slot was free (a finished target wakes it). The
 * sweeper releases expired claims so that a killed worker's targets are picked up again. `stop()`
 * claims nothing more and waits for the running targets.
 */
export function runWorkerPool(
  deps: { db: Database; logger: Logger; clock: Clock; executor: Executor },
  options: ResolvedWorkerOptions,
): Stoppable {
  const { db, logger, clock, executor } = deps;
  let running = true;
  // A finished target wakes the loop; one that finishes while the loop is claiming (not pausing)
  // makes its next pause end at once, so the freed slot is not left for a whole poll interval.
  let woken = false;
  let endPause: (() => void) | undefined;
  const wake = () => {
    woken = true;
    endPause?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        endPause = undefined;
        woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      if (woken) done();
      else endPause = done;
    });

  const share = slotShare(
    options.concurrency,
    options.accountShare ?? DEFAULT_ACCOUNT_SHARE,
    options.reservedSlots ?? DEFAULT_RESERVED_SLOTS,
  );
  /**
   * When this process last looked past the accounts at their share (at most once a poll
   * interval; pacing, so the monotonic clock rather than the injected one).
   */
  let lookedPastAt = Number.NEGATIVE_INFINITY;

  /** Claims into the free slots; true when claiming again at once may find more. */
  async function claimBatch(): Promise<boolean> {
    const free = options.concurrency - executor.activeCount();
    if (free <= 0) return false;
    const now = clock.now();
    const { claimed, lookedPast, deferred } = await claimFairShare(db, {
      workerId: executor.workerId,
      now,
      leaseUntil: new Date(now.getTime() + options.leaseMs),
      free,
      running: executor.activeByAccount(),
      share,
      // Never a target this process still runs under a claim it lost (see RunningTargets).
      excludeIds: executor.runningIds(),
      mayLookPast: performance.now() - lookedPastAt >= options.pollIntervalMs,
    });
    if (lookedPast) lookedPastAt = performance.now();
    if (claimed.length > 0) await withAsyncCommit(db, (tx) => markClaimedPostsPublishing(tx, claimed, now));
    // A finished target frees a slot: claim again at once rather than after a whole poll interval.
    for (const target of claimed) void executor.run(target).finally(wake);
    // What is due beyond these waits for its account's share: nothing changes until a target
    // finishes (which wakes the loop), so claiming again at once would find nothing.
    return claimed.length > 0 && !deferred;
  }

  const loop = (async () => {
    while (running) {
      let again = false;
      try {
        again = await claimBatch();
      } catch (error) {
        logger.error({ err: error, workerId: executor.workerId }, "claiming due targets failed");
      }
      if (running && !again) await pause(options.pollIntervalMs);
    }
  })();

  const sweeper =
    options.sweepIntervalMs === false
      ? undefined
      : setInterval(async () => {
          try {
            const released = await releaseExpiredClaims(db, clock.now());
            for (const target of released) {
              logger.warn(
                { targetId: target.id, formerWorker: target.claimedBy },
                "released an expired publishing claim",
              );
            }
          } catch (error) {
            logger.error({ err: error }, "sweeping expired claims failed");
          }
        }, options.sweepIntervalMs);
  sweeper?.unref();

  return {
    async stop() {
      running = false;
      if (sweeper) clearInterval(sweeper);
      wake();
      await loop;
      await executor.close();
    },
  };
}
