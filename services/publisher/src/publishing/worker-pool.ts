import type { Clock, Logger, Stoppable } from "@app/core";
import type { Database } from "@app/db";
import {
  claimDueTargets,
  markClaimedPostsPublishing,
  releaseExpiredClaims,
  withAsyncCommit,
} from "../store/targets.ts";
import type { Executor } from "./target-executor.ts";

/** How a process's publishing workers run. */
export type WorkerOptions = {
  /** This process's id in `claimed_by` (unique per process: host, pid and a random part by default). */
  workerId?: string;
  /** Targets run at once in this process. */
  concurrency?: number;
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
  Omit<WorkerOptions, "sweepIntervalMs" | "tiktokProcessingTimeoutMs">
> & {
  sweepIntervalMs: number | false;
};

/**
 * The worker loop: claims as many due targets as it has free slots, runs each on the executor,
 * and sleeps `pollIntervalMs` when nothing was due or no slot was free (a finished target wakes it). The sweeper releases expired claims so that
 * a killed worker's targets are picked up again. `stop()` claims nothing more and waits for the
 * running targets.
 */
export function runWorkerPool(
  deps: { db: Database; logger: Logger; clock: Clock; executor: Executor },
  options: ResolvedWorkerOptions,
): Stoppable {
  const { db, logger, clock, executor } = deps;
  let running = true;
  let wake: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function claimBatch(): Promise<number> {
    const free = options.concurrency - executor.activeCount();
    if (free <= 0) return 0;
    const now = clock.now();
    const claimed = await withAsyncCommit(
      db,
      (tx) =>
        claimDueTargets(tx, {
          workerId: executor.workerId,
          limit: free,
          now,
          leaseUntil: new Date(now.getTime() + options.leaseMs),
          // Never a target this process still runs under a claim it lost (see RunningTargets).
          excludeIds: executor.runningIds(),
        }),
      { claiming: true },
    );
    if (claimed.length > 0) await withAsyncCommit(db, (tx) => markClaimedPostsPublishing(tx, claimed, now));
    // A finished target frees a slot: claim again at once rather than after a whole poll interval.
    for (const target of claimed) void executor.run(target).finally(() => wake?.());
    return claimed.length;
  }

  const loop = (async () => {
    while (running) {
      let claimed = 0;
      try {
        claimed = await claimBatch();
      } catch (error) {
        logger.error({ err: error, workerId: executor.workerId }, "claiming due targets failed");
      }
      if (running && claimed === 0) await pause(options.pollIntervalMs);
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
      wake?.();
      await loop;
      await executor.close();
    },
  };
}
