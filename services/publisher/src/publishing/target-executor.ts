import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import { type StagedMedia, stageMedia } from "../media/staged-media.ts";
import {
  type ClaimedTarget,
  extendLeases,
  saveHandle,
  settleTarget,
  type TargetSettlement,
} from "../store/targets.ts";
import { publishToBluesky } from "./bluesky-publisher.ts";
import { type RetryPolicy, settlementForFailure } from "./retry-policy.ts";
import { LostClaim, type PublisherDeps, type StepResult, type TargetRun } from "./run-context.ts";
import { publishToTikTok } from "./tiktok-publisher.ts";
import { publishToYouTube } from "./youtube-publisher.ts";

const PUBLISHERS: Record<Platform, (run: TargetRun, deps: PublisherDeps) => Promise<StepResult>> = {
  youtube: publishToYouTube,
  tiktok: publishToTikTok,
  bluesky: publishToBluesky,
};

export type ExecutorOptions = {
  db: Database;
  logger: Logger;
  clock: Clock;
  deps: PublisherDeps;
  retry: RetryPolicy;
  workerId: string;
  leaseMs: number;
};

/** Runs claimed targets in this process and keeps their leases alive while they run. */
export type Executor = {
  readonly workerId: string;
  /**
   * One turn on a claimed target, settled in the database. With `holdUntil`, status polls are
   * waited out in process (holding the claim) until then, as publish-now does.
   */
  run(target: ClaimedTarget, options?: { holdUntil?: number }): Promise<void>;
  activeCount(): number;
  /** Stops the lease heartbeat once the running targets are done. */
  close(): Promise<void>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The executor. Every claim it holds is extended every third of a lease; a claim that could not
 * be extended is marked lost, and its run stops at the next handle save or chunk boundary.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const { db, logger, clock, deps, workerId } = options;
  const active = new Map<string, { lost: boolean; done: Promise<void> }>();
  const heartbeat = setInterval(() => void extendHeld(), Math.max(50, Math.floor(options.leaseMs / 3)));
  heartbeat.unref();

  async function extendHeld(): Promise<void> {
    const ids = [...active.keys()];
    if (ids.length === 0) return;
    try {
      const held = new Set(
        await extendLeases(db, workerId, ids, new Date(clock.now().getTime() + options.leaseMs)),
      );
      for (const id of ids) {
        const state = active.get(id);
        if (state && !held.has(id)) state.lost = true;
      }
    } catch (error) {
      logger.warn({ err: error, workerId }, "could not extend publishing leases");
    }
  }

  function runOf(target: ClaimedTarget, state: { lost: boolean }): TargetRun {
    const staged = new Map<number, Promise<StagedMedia>>();
    return {
      target,
      async saveHandle(handle) {
        if (state.lost) throw new LostClaim(target.id);
        if (!(await saveHandle(db, { id: target.id, workerId, handle, now: clock.now() }))) {
          state.lost = true;
          throw new LostClaim(target.id);
        }
        target.platformHandle = handle;
      },
      checkClaim() {
        if (state.lost) throw new LostClaim(target.id);
      },
      media(index) {
        const item = target.content.mediaItems[index];
        if (!item) return Promise.reject(new Error(`The post has no media item ${index}.`));
        let pending = staged.get(index);
        if (!pending) {
          pending = stageMedia(deps, item.url, `staged_${target.id}_${index}`);
          staged.set(index, pending);
        }
        return pending;
      },
    };
  }

  async function turn(target: ClaimedTarget, state: { lost: boolean }, holdUntil?: number): Promise<void> {
    const run = runOf(target, state);
    let settlement: TargetSettlement;
    for (;;) {
      try {
        const result = await PUBLISHERS[target.platform](run, deps);
        if (result.kind === "published") {
          settlement = { kind: "published", platformPostId: result.platformPostId, url: result.url };
        } else if (holdUntil && clock.now().getTime() + result.afterMs < holdUntil && !state.lost) {
          await sleep(result.afterMs);
          continue;
        } else {
          const runAt = new Date(clock.now().getTime() + result.afterMs);
          settlement = { kind: "later", runAt, countAsAttempt: false, error: null };
        }
      } catch (error) {
        if (error instanceof LostClaim || state.lost) {
          logger.warn(
            { targetId: target.id, workerId },
            "publishing claim lost; another worker resumes the target",
          );
          return;
        }
        settlement = settlementForFailure(error, target.attempts, clock.now(), options.retry);
        const text =
          settlement.kind === "failed" ? settlement.error : (settlement as { error: string }).error;
        logger.warn(
          { targetId: target.id, platform: target.platform, outcome: settlement.kind, reason: text },
          "publishing attempt failed",
        );
      }
      break;
    }
    const settled = await settleTarget(db, { target, workerId, settlement, now: clock.now() });
    if (!settled) logger.warn({ targetId: target.id, workerId }, "publishing claim lost before settling");
    else if (settlement.kind === "published")
      logger.info({ targetId: target.id, platform: target.platform }, "published");
  }

  return {
    workerId,
    run(target, runOptions = {}) {
      const state = { lost: false, done: Promise.resolve() };
      state.done = turn(target, state, runOptions.holdUntil)
        .catch((error: unknown) =>
          logger.error({ err: error, targetId: target.id }, "publishing run crashed"),
        )
        .finally(() => active.delete(target.id));
      active.set(target.id, state);
      return state.done;
    },
    activeCount: () => active.size,
    async close() {
      await Promise.allSettled([...active.values()].map((state) => state.done));
      clearInterval(heartbeat);
    },
  };
}
