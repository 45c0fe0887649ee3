import type { Clock, Logger, TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { Platform } from "../contracts/post.ts";
import { crossesProgressMark } from "../domain/post-steps.ts";
import { dropStagedMedia, type StagedMedia, stageMedia, stagingPath } from "../media/staged-media.ts";
import { appendPostStep } from "../store/events.ts";
import type { FailureAnswer } from "../store/run-history.ts";
import {
  type ClaimedTarget,
  extendLeases,
  saveHandle,
  settleTarget,
  type TargetSettlement,
} from "../store/targets.ts";
import { publishToBluesky } from "./bluesky-publisher.ts";
import { describeHandle, openHandle, sealHandle } from "./handle-seal.ts";
import { failureAnswer, type RetryPolicy, settlementForFailure } from "./retry-policy.ts";
import { LostClaim, type PlatformPublisherDeps, type StepResult, type TargetRun } from "./run-context.ts";
import { publishToTikTok } from "./tiktok-publisher.ts";
import { publishToYouTube } from "./youtube-publisher.ts";

const PUBLISHERS: Record<Platform, (run: TargetRun, deps: PlatformPublisherDeps) => Promise<StepResult>> = {
  youtube: publishToYouTube,
  tiktok: publishToTikTok,
  bluesky: publishToBluesky,
};

export type ExecutorOptions = {
  db: Database;
  logger: Logger;
  clock: Clock;
  deps: PlatformPublisherDeps;
  retry: RetryPolicy;
  workerId: string;
  leaseMs: number;
  /** Seals the handle's upload URLs at rest (the connections' token sealer). */
  sealer: TextSealer;
  /** The targets this process runs, shared by its executors (see {@link RunningTargets}). */
  running?: RunningTargets;
};

/**
 * The targets a process is running, over all its executors (workers and publish-now). A claim's
 * lease can run out while its run goes on (a stalled loop, missed heartbeats); the sweeper then
 * hands the target back, and this process must not claim it again until that stale run has
 * stopped: the new run would race the old one over the same upload (on PGlite the other worker's
 * claim always came first; on PostgreSQL the stale worker's own poll often won).
 */
export type RunningTargets = {
  add(targetId: string): void;
  remove(targetId: string): void;
  ids(): string[];
};

export function createRunningTargets(): RunningTargets {
  const counts = new Map<string, number>();
  return {
    add(targetId) {
      counts.set(targetId, (counts.get(targetId) ?? 0) + 1);
    },
    remove(targetId) {
      const left = (counts.get(targetId) ?? 1) - 1;
      if (left > 0) counts.set(targetId, left);
      else counts.delete(targetId);
    },
    ids: () => [...counts.keys()],
  };
}

/** Runs claimed targets in this process and keeps their leases alive while they run. */
export type Executor = {
  readonly workerId: string;
  /**
   * One turn on a claimed target, settled in the database. With `holdUntil`, status polls are
   * waited out in process (holding the claim) until then, as publish-now does.
   */
  run(target: ClaimedTarget, options?: { holdUntil?: number }): Promise<void>;
  activeCount(): number;
  /** The targets this executor runs, counted by their posts' accounts (for the slot share). */
  activeByAccount(): Map<string, number>;
  /** The ids of the targets this process is running (its executors', not to be claimed again). */
  runningIds(): string[];
  /** Stops the lease heartbeat once the running targets are done. */
  close(): Promise<void>;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A claim this process runs: lost once the database or the local lease deadline says so. */
type RunState = {
  target: ClaimedTarget;
  lost: boolean;
  /** After this instant (ms) the lease may have run out in the database: the run stops. */
  trustUntil: number;
  done: Promise<void>;
};

/**
 * The executor. Every claim it holds is extended every third of a lease; a claim that could not
 * be extended is marked lost, and so is one not extended within the lease minus a margin (a
 * quarter of it: the sweeper may hand it on soon). A lost run stops at the next handle save or
 * chunk boundary; its writes are conditional on its claim token and could not land anyway.
 */
export function createExecutor(options: ExecutorOptions): Executor {
  const { db, logger, clock, deps, workerId, sealer } = options;
  const running = options.running ?? createRunningTargets();
  const margin = Math.floor(options.leaseMs / 4);
  /** Runs by claim token: one target may have a stale run and (in another executor) a new one. */
  const active = new Map<string, RunState>();
  const heartbeat = setInterval(() => void extendHeld(), Math.max(50, Math.floor(options.leaseMs / 3)));
  heartbeat.unref();

  async function extendHeld(): Promise<void> {
    const states = [...active.values()].filter((state) => !state.lost);
    if (states.length === 0) return;
    const sentAt = clock.now().getTime();
    try {
      const held = new Set(
        await extendLeases(
          db,
          states.map((state) => state.target),
          new Date(sentAt + options.leaseMs),
        ),
      );
      for (const state of states) {
        if (held.has(state.target.id)) state.trustUntil = sentAt + options.leaseMs - margin;
        else state.lost = true;
      }
    } catch (error) {
      logger.warn({ err: error, workerId }, "could not extend publishing leases");
    }
  }

  /**
   * A step of the history that is no state change of its own (chunk progress, a claim found
   * lost): written on its own, and a failure to write it is logged, never the run's.
   */
  async function note(target: ClaimedTarget, step: "upload_progress" | "claim_lost", detail: object) {
    const at = clock.now();
    await appendPostStep(
      db,
      { postId: target.postId, targetId: target.id, step, detail: { workerId, ...detail } },
      at,
    ).catch((error: unknown) =>
      logger.warn({ err: error, targetId: target.id, step }, "a step of the post's history was not recorded"),
    );
  }

  /** Whether the run must stop: its claim was lost, or its lease may have run out unnoticed. */
  function isLost(state: RunState): boolean {
    if (!state.lost && clock.now().getTime() > state.trustUntil) state.lost = true;
    return state.lost;
  }

  function runOf(target: ClaimedTarget, state: RunState): TargetRun {
    const staged = new Map<number, Promise<StagedMedia>>();
    return {
      target,
      async saveHandle(handle) {
        if (isLost(state)) throw new LostClaim(target.id);
        const stored = sealHandle(sealer, target.id, handle);
        const now = clock.now();
        const saved = await saveHandle(db, {
          id: target.id,
          postId: target.postId,
          claimToken: target.claimToken,
          handle: stored,
          detail: { workerId, handle: describeHandle(handle) },
          now,
        });
        if (!saved) {
          state.lost = true;
          throw new LostClaim(target.id);
        }
        target.platformHandle = handle;
      },
      checkClaim() {
        if (isLost(state)) throw new LostClaim(target.id);
      },
      media(index) {
        const item = target.content.mediaItems[index];
        if (!item) return Promise.reject(new Error(`The post has no media item ${index}.`));
        let pending = staged.get(index);
        if (!pending) {
          pending = stageMedia(deps, item.url, stagingPath(target.id, index));
          staged.set(index, pending);
        }
        return pending;
      },
      async progress(before, after, total) {
        if (crossesProgressMark(before, after, total))
          await note(target, "upload_progress", { sentBytes: after, totalBytes: total });
      },
    };
  }

  async function turn(target: ClaimedTarget, state: RunState, holdUntil?: number): Promise<void> {
    const run = runOf(target, state);
    let settlement: TargetSettlement;
    let answer: FailureAnswer | undefined;
    for (;;) {
      try {
        // In memory the handle is plain; at rest its upload URLs are sealed (see handle-seal.ts).
        target.platformHandle = openHandle(sealer, target.id, target.platformHandle);
        const result = await PUBLISHERS[target.platform](run, deps);
        if (result.kind === "published") {
          settlement = { kind: "published", platformPostId: result.platformPostId, url: result.url };
        } else if (holdUntil && clock.now().getTime() + result.afterMs < holdUntil && !isLost(state)) {
          await sleep(result.afterMs);
          continue;
        } else {
          const runAt = new Date(clock.now().getTime() + result.afterMs);
          settlement = { kind: "later", runAt, countAsAttempt: false, error: null };
        }
      } catch (error) {
        if (error instanceof LostClaim || isLost(state)) {
          logger.warn(
            { targetId: target.id, workerId },
            "publishing claim lost; another worker resumes the target",
          );
          await note(target, "claim_lost", {});
          return;
        }
        settlement = settlementForFailure(error, target.attempts, clock.now(), options.retry);
        answer = failureAnswer(error);
        const text =
          settlement.kind === "failed" ? settlement.error : (settlement as { error: string }).error;
        logger.warn(
          { targetId: target.id, platform: target.platform, outcome: settlement.kind, reason: text },
          "publishing attempt failed",
        );
      }
      break;
    }
    const settled = await settleTarget(db, {
      target,
      settlement,
      now: clock.now(),
      report: { workerId, ...(answer ? { answer } : {}) },
    });
    if (!settled) {
      logger.warn({ targetId: target.id, workerId }, "publishing claim lost before settling");
      await note(target, "claim_lost", { beforeSettling: true });
      return;
    }
    if (settlement.kind === "published")
      logger.info({ targetId: target.id, platform: target.platform }, "published");
    if (settlement.kind === "published" || settlement.kind === "failed") {
      await dropStagedMedia(deps.storage, target.id, target.content.mediaItems.length).catch(
        (error: unknown) =>
          logger.warn({ targetId: target.id, err: error }, "staged media of a finished target not deleted"),
      );
    }
  }

  return {
    workerId,
    run(target, runOptions = {}) {
      const state: RunState = {
        target,
        lost: false,
        trustUntil: new Date(target.claimedUntil).getTime() - margin,
        done: Promise.resolve(),
      };
      state.done = turn(target, state, runOptions.holdUntil)
        .catch((error: unknown) =>
          logger.error({ err: error, targetId: target.id }, "publishing run crashed"),
        )
        .finally(() => {
          active.delete(target.claimToken);
          running.remove(target.id);
        });
      active.set(target.claimToken, state);
      running.add(target.id);
      return state.done;
    },
    activeCount: () => active.size,
    activeByAccount() {
      const counts = new Map<string, number>();
      for (const { target } of active.values())
        counts.set(target.accountId, (counts.get(target.accountId) ?? 0) + 1);
      return counts;
    },
    runningIds: () => running.ids(),
    async close() {
      await Promise.allSettled([...active.values()].map((state) => state.done));
      clearInterval(heartbeat);
    },
  };
}
