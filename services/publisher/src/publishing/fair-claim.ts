import type { Database } from "@app/db";
import {
  type ClaimedTarget,
  claimLockedTargets,
  lockDueCandidates,
  withAsyncCommit,
} from "../store/targets.ts";
import { accountsThatMayNotTakeMore, type DueCandidate, pickFairly, type SlotShare } from "./fair-share.ts";

/**
 * How many due targets a claim looks at for `free` slots: enough to see past a few of one
 * account's to another's. Locked briefly (the claim's transaction) and skipped meanwhile by
 * other workers, so it stays small.
 */
export const scanWindow = (free: number): number => Math.min(256, free * 2 + 16);

export type FairClaimInput = {
  workerId: string;
  now: Date;
  leaseUntil: Date;
  /** Free slots in this process. */
  free: number;
  /** Targets this process runs now, by account. */
  running: ReadonlyMap<string, number>;
  share: SlotShare;
  /** Targets this process still runs under a lost claim: never claimed again here meanwhile. */
  excludeIds: readonly string[];
  /**
   * Whether this claim may look past the accounts that can take no more slots (at their share, or
   * running a target when only reserved slots are left) with a second statement that walks the
   * due targets of every other account: worth it only when the window showed such accounts
   * crowding it out, and rate-limited by the caller, as it reads every due target of theirs.
   */
  mayLookPast: boolean;
};

/**
 * One claim of a worker process, in one transaction (`deferred`: due targets were left by the
 * share or the reserve while slots are free, so claiming again before a slot comes free finds
 * nothing): the first due targets in due order are locked (`SKIP LOCKED`) and claimed by
 * {@link pickFairly}'s rules; when some were left while slots are still free, and the window may
 * have hidden other accounts' due targets behind them, a second look leaves out the accounts that
 * can take no more. Exactly-once holds as before: a target is claimed only while this transaction
 * holds its row lock, under the same conditions, with a fresh claim token.
 */
export async function claimFairShare(
  db: Database,
  input: FairClaimInput,
): Promise<{ claimed: ClaimedTarget[]; lookedPast: boolean; deferred: boolean }> {
  return withAsyncCommit(
    db,
    async (tx) => {
      const limit = scanWindow(input.free);
      const window = await lockDueCandidates(tx, { now: input.now, limit, excludeIds: input.excludeIds });
      const first = pickFairly(window, input);
      let picked: DueCandidate[] = first.picked;
      const lookPast =
        input.mayLookPast && first.deferred && window.length === limit && picked.length < input.free;
      if (lookPast) {
        const beyond = await lockDueCandidates(tx, {
          now: input.now,
          limit: input.free - picked.length,
          excludeIds: [...input.excludeIds, ...window.map((candidate) => candidate.id)],
          skipAccounts: accountsThatMayNotTakeMore(
            input.running,
            picked,
            input.share,
            input.free - picked.length,
          ),
        });
        const held = new Map(input.running);
        for (const candidate of picked)
          held.set(candidate.accountId, (held.get(candidate.accountId) ?? 0) + 1);
        const more = pickFairly(beyond, {
          free: input.free - picked.length,
          running: held,
          share: input.share,
        });
        picked = [...picked, ...more.picked];
      }
      const claimed = await claimLockedTargets(tx, {
        ids: picked.map((candidate) => candidate.id),
        workerId: input.workerId,
        now: input.now,
        leaseUntil: input.leaseUntil,
      });
      return { claimed, lookedPast: lookPast, deferred: first.deferred };
    },
    { claiming: true },
  );
}
