import { type Clock, type Logger, newId, systemClock } from "@app/core";
import type { Database } from "@app/db";
import { toolName } from "../domain/key-policy.ts";
import { noteBalanceChange } from "../store/balances.ts";
import { revocationCount } from "../store/revocations.ts";
import type { NewRun, StartedRun } from "../store/runs.ts";
import { type HeldRunRecord, HOLD_TTL_SECONDS, settleHold, takeHold } from "../store/spend-holds.ts";

export type HeldSpendOptions = {
  /** How long a finished run may wait before its hold is settled (default 100 ms). */
  flushMs?: number;
  /** A hold unused this long is settled and given back (default 1 s). */
  idleMs?: number;
  /** How many runs' prices a hold asks for at once (default 256; it gets at most half the room left). */
  runsPerHold?: number;
  /** Most runs written by one settle (default 500). */
  maxBatch?: number;
  /** A hold is renewed at least this often, runs finished or not (default a third of its lifetime). */
  renewAfterMs?: number;
  /** Tells when a hold's UTC day is over (the system's clock by default). */
  clock?: Clock;
};

/** This instance's hold on one key's spend on one tool, and the runs charged against it. */
type Slot = {
  holdId: string;
  accountId: string;
  keyId: string;
  tool: string;
  /**
   * What the hold holds in the database, as this instance last read it from a statement's answer,
   * less what it set aside to give back (never more than the database holds).
   */
  heldMicro: bigint;
  /** The hold's version as the last statement answered it (0: no hold taken under this id yet). */
  version: number;
  /** The UTC day whose spend the hold counts, and when this instance first took it. */
  day?: { name: string; endsAt: number; takenAt: number };
  /** What runs took from it and no settle has charged yet (refunded runs give theirs back). */
  usedMicro: bigint;
  /** Runs charged and not finished yet. */
  running: number;
  /** Finished runs waiting for the settle, with the order they were charged in. */
  finished: Array<{ seq: number; record: HeldRunRecord }>;
  lastUsedAt: number;
  /** When its hold was last taken, added to or settled (each renews it in the database). */
  renewedAt: number;
  /** The process's count of key and policy changes when the hold was last added to (`revocationCount`). */
  policiesSeen: number;
  /**
   * Its hold counts another day's spend, or the sweeper released it: no run takes from it any
   * more; the runs it served are settled and it ends.
   */
  retired: boolean;
  /** The slot's statements, one after the other. */
  work: Promise<unknown>;
};

/** A run charged against a hold: what its finish needs. */
export type HeldCharge = { slot: Slot; seq: number; finished: boolean };

/**
 * How a priced run's charge went: started, with what it left of the account's balance (as this
 * instance sees it) and what its finish needs; or refused, nothing charged.
 */
export type HeldStart =
  | { kind: "started"; balanceMicro: bigint; charge: HeldCharge }
  | Exclude<StartedRun, { kind: "started" }>;

const key = (keyId: string, tool: string) => `${keyId}\u0000${tool}`;

/** The UTC midnight that ends day `YYYY-MM-DD`, in epoch milliseconds. */
const dayEndsAt = (day: string) => Date.parse(`${day}T00:00:00Z`) + 86_400_000;

/** A hold is renewed at least this often while its instance lives (it expires after `HOLD_TTL_SECONDS`). */
const RENEW_AFTER_MS = (HOLD_TTL_SECONDS * 1_000) / 3;

/**
 * Priced runs charged in memory, from holds this instance takes on the database (`spend-holds.ts`):
 * a run is charged by taking its price from its key's hold on its tool, without a statement; a
 * hold that runs short is topped up by one statement (which checks the balance and the key's caps,
 * with everything every instance holds counted as spent, so no burst passes a cap or the balance);
 * finished runs are settled behind their answers, in batches ({@link settleHold}): run rows, ledger
 * rows, the balance debited and the spend counted, at most `flushMs` after they answer. What that
 * changes, beside the speed:
 * - a run's rows are in the database within `flushMs` of its answer; `flush()` writes them at once
 *   (the history routes and the service's stop call it);
 * - a hold is spoken for: what one instance holds and has not used is refused elsewhere until it
 *   is settled, at most `idleMs` after its last run (the rest of a hold is also given back when a
 *   run of the same account here would be refused without it);
 * - an instance killed before its settle loses the records of the runs it answered since (at most
 *   `flushMs` of them, never charged), and its holds expire: their balance goes back, their spend
 *   counts on the key's caps.
 * A run with an `Idempotency-Key` is charged by the database's own statement instead (`run-charge.ts`).
 */
export class HeldSpend {
  private readonly slots = new Map<string, Slot>();
  /** Slots whose hold counts another day: settled and ended once their runs are in. */
  private readonly retired = new Set<Slot>();
  /** The settled balance of each account, as the statements of this instance last returned it. */
  private readonly settled = new Map<string, bigint>();
  /** What runs of each account took from holds here and no settle has charged yet. */
  private readonly pending = new Map<string, bigint>();
  private seq = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly flushMs: number;
  private readonly idleMs: number;
  private readonly runsPerHold: bigint;
  private readonly maxBatch: number;
  private readonly renewAfterMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly db: Database,
    private readonly logger: Logger,
    options: HeldSpendOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 100;
    this.idleMs = options.idleMs ?? 1_000;
    this.runsPerHold = BigInt(options.runsPerHold ?? 256);
    this.maxBatch = options.maxBatch ?? 500;
    this.renewAfterMs = options.renewAfterMs ?? RENEW_AFTER_MS;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Charges a priced run its price: from its key's hold on its tool, topped up as needed. A
   * refusal (`insufficient`, `capped`) charged nothing; `started` shows the balance the run
   * leaves (the settled balance less what runs here took and no settle has charged yet).
   */
  async charge(run: NewRun): Promise<HeldStart> {
    const tool = toolName(run);
    let freedOthers = false;
    let policyRechecked = false;
    for (;;) {
      const slot = this.slotFor(run, tool);
      // A hold counts one UTC day's spend: past its midnight, a run takes a hold of the new day
      // (unless the hold was first taken after that midnight: the database's day decides then).
      const now = this.clock.now().getTime();
      if (slot.day && now >= slot.day.endsAt && slot.day.takenAt < slot.day.endsAt) {
        this.retire(slot);
        continue;
      }
      // A key or a policy changed in this process since the hold was taken: what it holds is
      // checked against the policy again (given back, then held anew) before a run uses it.
      if (!policyRechecked && slot.policiesSeen !== revocationCount() && slot.heldMicro > slot.usedMicro) {
        policyRechecked = true;
        if (!(await this.settle(slot, true))) {
          throw new Error("a spend hold could not be given back for its key's changed policy");
        }
        continue;
      }
      if (slot.heldMicro - slot.usedMicro >= run.costMicro) {
        slot.usedMicro += run.costMicro;
        slot.running += 1;
        slot.lastUsedAt = Date.now();
        this.addPending(run.accountId, run.costMicro);
        this.seq += 1;
        return {
          kind: "started",
          balanceMicro: this.balanceOf(run.accountId),
          charge: { slot, seq: this.seq, finished: false },
        };
      }
      const topUp = await this.topUp(slot, run.costMicro);
      if (topUp === "again") continue;
      // What this instance holds of the account elsewhere may be what is missing: given back, then tried once more.
      if (!freedOthers && (await this.giveBackUnused(run.accountId, slot))) {
        freedOthers = true;
        continue;
      }
      return topUp;
    }
  }

  /**
   * A charged run has finished: its record waits for its hold's settle. A refunded run's price
   * goes back to the hold at once. Returns the balance it leaves, as {@link charge} does. Only a
   * run's first finish counts.
   */
  finish(charge: HeldCharge, record: HeldRunRecord): bigint {
    const { slot } = charge;
    if (charge.finished) return this.balanceOf(slot.accountId);
    charge.finished = true;
    slot.running -= 1;
    slot.lastUsedAt = Date.now();
    if (record.refunded) {
      slot.usedMicro -= record.costMicro;
      this.addPending(slot.accountId, -record.costMicro);
    }
    slot.finished.push({ seq: charge.seq, record });
    this.schedule();
    return this.balanceOf(slot.accountId);
  }

  /** The balance of an account as this instance sees it: settled, less what runs here took since. */
  balanceOf(accountId: string): bigint {
    return (this.settled.get(accountId) ?? 0n) - (this.pending.get(accountId) ?? 0n);
  }

  /** What runs of an account took from holds here and no settle has charged yet. */
  pendingOf(accountId: string): bigint {
    return this.pending.get(accountId) ?? 0n;
  }

  /**
   * Settles every finished run now (and waits for any settle under way), and gives back holds idle
   * past `idleMs`; resolves once written.
   */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const now = Date.now();
    const settles: Promise<boolean>[] = [];
    for (const slot of [...this.slots.values(), ...this.retired]) {
      const idle = slot.running === 0 && (slot.retired || now - slot.lastUsedAt >= this.idleMs);
      // A hold whose runs are all still going (slow upstreams) is renewed all the same.
      const renew = now - slot.renewedAt >= this.renewAfterMs;
      // A slot with nothing to do now may still have a settle under way (the timer's): it is waited for.
      settles.push(
        slot.finished.length > 0 || idle || renew
          ? this.settle(slot, idle)
          : this.inTurn(slot, async () => true),
      );
    }
    await Promise.all(settles);
    if (this.slots.size > 0 || this.retired.size > 0) this.schedule();
  }

  /** Settles everything and gives every hold back (the service's stop). */
  async stop(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    // Everything not used by a run still going goes back, whatever the slot's runs.
    await Promise.all([...this.slots.values(), ...this.retired].map((slot) => this.settle(slot, true)));
  }

  private slotFor(run: NewRun, tool: string): Slot {
    const id = key(run.keyId, tool);
    let slot = this.slots.get(id);
    if (!slot) {
      slot = {
        holdId: newId("hold"),
        accountId: run.accountId,
        keyId: run.keyId,
        tool,
        heldMicro: 0n,
        version: 0,
        usedMicro: 0n,
        running: 0,
        finished: [],
        lastUsedAt: Date.now(),
        renewedAt: Date.now(),
        policiesSeen: revocationCount(),
        retired: false,
        work: Promise.resolve(),
      };
      this.slots.set(id, slot);
    }
    return slot;
  }

  /** Runs a statement of a slot after its earlier ones. */
  private inTurn<T>(slot: Slot, step: () => Promise<T>): Promise<T> {
    const next = slot.work.then(step);
    slot.work = next.catch(() => undefined);
    return next;
  }

  /**
   * Adds to a slot's hold so that it holds at least `priceMicro` unused: `again` when the slot
   * (or a new one, for a new day) may now serve the run, or the refusal when nothing more may be
   * held.
   */
  private topUp(slot: Slot, priceMicro: bigint): Promise<"again" | Exclude<StartedRun, { kind: "started" }>> {
    return this.inTurn(slot, async () => {
      if (slot.retired || slot.heldMicro - slot.usedMicro >= priceMicro) return "again" as const;
      const policiesSeen = revocationCount();
      const taken = await takeHold(this.db, {
        holdId: slot.holdId,
        known: slot.version > 0,
        accountId: slot.accountId,
        keyId: slot.keyId,
        tool: slot.tool,
        priceMicro,
        wantMicro: priceMicro * this.runsPerHold,
      });
      if (taken.kind === "stale" || taken.kind === "gone") {
        this.retire(slot);
        return "again" as const;
      }
      this.observe(slot.accountId, taken.balanceMicro);
      if (taken.kind === "held") {
        slot.heldMicro = taken.amountMicro;
        slot.version = taken.version;
        slot.day ??= { name: taken.day, endsAt: dayEndsAt(taken.day), takenAt: this.clock.now().getTime() };
        slot.renewedAt = Date.now();
        slot.policiesSeen = policiesSeen;
        this.schedule();
        return "again" as const;
      }
      return taken.kind === "insufficient"
        ? { kind: "insufficient" as const, balanceMicro: this.balanceOf(slot.accountId) }
        : taken;
    });
  }

  /**
   * Gives back what this instance's holds of the account (but `except`) do not use, for a run that
   * would be refused without it; whether there was any.
   */
  async giveBackUnused(accountId: string, except?: Slot): Promise<boolean> {
    const others = [...this.slots.values()].filter(
      (slot) => slot !== except && slot.accountId === accountId && slot.heldMicro > slot.usedMicro,
    );
    await Promise.all(others.map((slot) => this.settle(slot, true)));
    return others.length > 0;
  }

  /**
   * Writes a slot's finished runs (in the order they were charged) and charges them; with
   * `giveBack`, what the hold holds beyond the runs still going goes back too, and a slot left
   * holding nothing is forgotten. A settle that fails keeps its runs for the next one, and
   * answers false. A give-back the database did not apply (the hold had moved on: an earlier
   * settle's answer was lost) is asked again once, at the version that settle's answer gave.
   */
  private async settle(slot: Slot, giveBack: boolean): Promise<boolean> {
    const outcome = await this.settleOnce(slot, giveBack);
    return outcome === "again" ? (await this.settleOnce(slot, giveBack)) !== "failed" : outcome === "done";
  }

  private settleOnce(slot: Slot, giveBack: boolean): Promise<"done" | "again" | "failed"> {
    return this.inTurn(slot, async () => {
      const batch = slot.finished.splice(0, this.maxBatch).sort((a, b) => a.seq - b.seq);
      const runs = batch.map((entry) => entry.record);
      const released = giveBack ? slot.heldMicro - slot.usedMicro : 0n;
      const renew = Date.now() - slot.renewedAt >= this.renewAfterMs && slot.heldMicro > 0n;
      if (runs.length === 0 && released === 0n && !renew) {
        this.forgetIfEmpty(slot);
        return "done" as const;
      }
      // Set aside before the statement, and not taken back if it fails (it may have committed):
      // the next statement's answer says what the hold holds.
      slot.heldMicro -= released;
      const charged = runs.reduce((sum, run) => (run.refunded ? sum : sum + run.costMicro), 0n);
      try {
        const settled = await settleHold(this.db, {
          holdId: slot.holdId,
          accountId: slot.accountId,
          keyId: slot.keyId,
          runs,
          releaseMicro: released,
          version: slot.version,
        });
        slot.renewedAt = Date.now();
        slot.usedMicro -= charged;
        this.addPending(slot.accountId, -charged);
        if (settled.amountMicro === undefined) {
          // The sweeper released the hold (this instance could not renew it in time): what runs
          // still going took from it is written uncharged; new runs take a new hold.
          this.logger.error(
            { holdId: slot.holdId, accountId: slot.accountId, runs: runs.length },
            "a spend hold had expired before its runs were settled: they were written and not charged",
          );
          slot.heldMicro = slot.usedMicro;
          if (!slot.retired) this.retire(slot);
        } else {
          slot.heldMicro = settled.amountMicro;
          slot.version = settled.version;
          if (settled.balanceMicro !== undefined) this.observe(slot.accountId, settled.balanceMicro);
          // A cap lowered since the hold was taken (by another instance, say): what the hold does
          // not use goes back, and the next run takes a hold within the cap as it now stands.
          if (settled.overMicro > 0n && slot.heldMicro > slot.usedMicro) void this.settle(slot, true);
        }
        if (charged > 0n) noteBalanceChange();
        this.forgetIfEmpty(slot);
        return settled.amountMicro !== undefined && settled.releasedMicro < released
          ? ("again" as const)
          : ("done" as const);
      } catch (error) {
        slot.finished.unshift(...batch);
        this.logger.warn(
          { err: error, holdId: slot.holdId, runs: runs.length },
          "priced runs not settled yet; retrying",
        );
        this.schedule(Math.max(this.flushMs, 1_000));
        return "failed" as const;
      }
    });
  }

  private forgetIfEmpty(slot: Slot): void {
    if (slot.heldMicro > 0n || slot.running > 0 || slot.finished.length > 0) return;
    this.retired.delete(slot);
    const id = key(slot.keyId, slot.tool);
    if (this.slots.get(id) === slot) this.slots.delete(id);
  }

  private retire(slot: Slot): void {
    slot.retired = true;
    this.retired.add(slot);
    const id = key(slot.keyId, slot.tool);
    if (this.slots.get(id) === slot) this.slots.delete(id);
    this.schedule();
  }

  /** The account's settled balance as a statement of this instance just read it. */
  observe(accountId: string, settledMicro: bigint): void {
    this.settled.set(accountId, settledMicro);
  }

  private addPending(accountId: string, micro: bigint): void {
    const next = (this.pending.get(accountId) ?? 0n) + micro;
    if (next === 0n) this.pending.delete(accountId);
    else this.pending.set(accountId, next);
  }

  private schedule(delayMs = this.flushMs): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }
}
