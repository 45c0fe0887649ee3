import type { Clock, Logger } from "@app/core";
import type { IdempotencyStore } from "@app/edge";
import type { RunStore } from "./runs.ts";

/**
 * Finishes charged runs that no instance will finish, as `failed` and refunded: the instance
 * crashed mid-run, or its own refund could not be written. A run counts as abandoned once it
 * began more than `abandonAfterMs` ago, which must exceed the upstream's total deadline by a wide
 * margin: a live instance finishes every run within that deadline, and a finish only moves a run
 * still `running`, so a late finish and the sweeper never both refund. Returns how many it refunded.
 */
export async function refundAbandonedRuns(
  runs: RunStore,
  now: Date,
  abandonAfterMs: number,
): Promise<number> {
  const abandoned = await runs.abandoned(new Date(now.getTime() - abandonAfterMs));
  for (const run of abandoned) {
    await runs.finish(run, {
      outcome: "failed",
      upstreamStatus: null,
      durationMs: Math.min(2_147_483_647, now.getTime() - run.createdAt.getTime()),
      refund: true,
    });
  }
  return abandoned.length;
}

/** When a running run counts as abandoned: twice the upstream deadline, and never under five minutes. */
export const abandonAfterMs = (upstreamTimeoutMs: number) => Math.max(5 * 60_000, 2 * upstreamTimeoutMs);

/**
 * Runs {@link refundAbandonedRuns} at start and every `everyMs`, and deletes the run keys that can
 * never answer again (stored answers past their 24 hours); the returned function stops it.
 */
export function startRunSweeper(
  deps: { runs: RunStore; idempotency: Pick<IdempotencyStore, "purgeExpired">; clock: Clock; logger: Logger },
  options: { abandonAfterMs: number; everyMs?: number },
): () => void {
  const sweep = () =>
    refundAbandonedRuns(deps.runs, deps.clock.now(), options.abandonAfterMs)
      .then(
        (refunded) => {
          if (refunded > 0) deps.logger.warn({ refunded }, "refunded charged runs that were never finished");
        },
        (error: unknown) => deps.logger.warn({ err: error }, "the abandoned-run sweep failed"),
      )
      .then(() =>
        deps.idempotency.purgeExpired().catch((error: unknown) => {
          deps.logger.warn({ err: error }, "expired Idempotency-Keys could not be purged");
        }),
      );
  void sweep();
  const timer = setInterval(sweep, options.everyMs ?? 60_000);
  timer.unref();
  return () => clearInterval(timer);
}
