import type { Clock, Logger } from "@app/core";
import type { Database } from "@app/db";
import type { IdempotencyStore } from "@app/edge";
import { failedAfterCharge } from "../runner/idempotent-run.ts";
import type { RunOutcome, RunStore } from "./runs.ts";
import { releaseExpiredHolds } from "./spend-holds.ts";

/** The idempotency store as the sweeper uses it. */
type SweptKeys = Pick<IdempotencyStore, "pendingSince" | "complete" | "release" | "purgeExpired">;

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

/**
 * What becomes of a pinned run key (a priced run's, pinned just before its charge) once its
 * request is gone, by how its run stands:
 * - still `running`: nothing yet; the run is finished, or refunded as abandoned, first.
 * - ended by the gateway's own 502/504 (its upstream unreachable, slow or oversize; refunded):
 *   released, as the run itself would have, so a retry runs again.
 * - `failed` (refunded) or `completed` (its answer never stored, now lost): its upstream may have
 *   been called, so the key keeps the 500 of a failure after the charge, as the run itself keeps
 *   it: a retry neither runs nor is charged again.
 * - no run: its request stopped between the pin and the charge, or is stalled there and may still
 *   charge: the key keeps the 500 too, never released, so a late charge cannot meet a retry's.
 */
export function pinnedKeyFate(run: RunOutcome | "running" | undefined): "wait" | "release" | "keep-500" {
  switch (run) {
    case "running":
      return "wait";
    case "upstream_unavailable":
    case "upstream_timeout":
    case "upstream_response_too_large":
      return "release";
    case "failed":
    case "completed":
    case undefined:
      return "keep-500";
  }
}

/**
 * Settles the run keys that stay pinned although their request is gone (its instance died after
 * the pin, or could neither store its answer nor release the key): each pinned key pending since
 * before `abandonAfterMs` ago, by its run's outcome ({@link pinnedKeyFate}). The key's attachment
 * is its run's id (`runner/idempotent-run.ts`). Each step acts on the holder's lease, so a key
 * completed or released meanwhile is left as it is. Returns how many it settled.
 */
export async function settlePinnedRunKeys(
  runs: RunStore,
  idempotency: Pick<IdempotencyStore, "pendingSince" | "complete" | "release">,
  now: Date,
  abandonAfterMs: number,
): Promise<number> {
  const pending = await idempotency.pendingSince(new Date(now.getTime() - abandonAfterMs));
  const pinned = pending.filter((key) => key.pinned);
  const outcomes = await runs.outcomes(pinned.flatMap((key) => key.attachment ?? []));
  let settled = 0;
  for (const key of pinned) {
    const fate = pinnedKeyFate(key.attachment === undefined ? undefined : outcomes.get(key.attachment));
    if (fate === "wait") continue;
    const done =
      fate === "release"
        ? await idempotency.release(key.lease)
        : await idempotency.complete(key.lease, failedAfterCharge());
    if (done) settled += 1;
  }
  return settled;
}

/** When a running run counts as abandoned: twice the upstream deadline, and never under five minutes. */
export const abandonAfterMs = (upstreamTimeoutMs: number) => Math.max(5 * 60_000, 2 * upstreamTimeoutMs);

/**
 * Runs {@link refundAbandonedRuns} then {@link settlePinnedRunKeys} at start and every `everyMs`,
 * releases the spend holds past their expiry (`releaseExpiredHolds`), and deletes the run keys that can never answer again (stored answers past their 24 hours); the
 * returned function stops it.
 */
export function startRunSweeper(
  deps: { db: Database; runs: RunStore; idempotency: SweptKeys; clock: Clock; logger: Logger },
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
        settlePinnedRunKeys(deps.runs, deps.idempotency, deps.clock.now(), options.abandonAfterMs).then(
          (settled) => {
            if (settled > 0)
              deps.logger.warn({ settled }, "settled Idempotency-Keys of runs that were never answered");
          },
          (error: unknown) => deps.logger.warn({ err: error }, "the pinned Idempotency-Key sweep failed"),
        ),
      )
      .then(() =>
        releaseExpiredHolds(deps.db).then(
          (released) => {
            if (released > 0) deps.logger.warn({ released }, "released spend holds their instances left");
          },
          (error: unknown) => deps.logger.warn({ err: error }, "the expired spend-hold sweep failed"),
        ),
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
