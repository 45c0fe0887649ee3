import { type Clock, systemClock } from "@app/core";
import { fixedWindowDecision } from "./fixed-window.ts";
import { checkedRule } from "./limiter-options.ts";
import type { RateDecision, RateLimiter, RateRule } from "./rate-limiter.ts";

type Window = { start: Date; hits: number };

/** Subjects whose windows a limiter holds at most, unless told otherwise. */
const MAX_SUBJECTS = 100_000;

/** How a fixed window in memory is bounded. */
export type MemoryFixedWindowOptions = {
  /**
   * Subjects whose windows are held at most (default {@link MAX_SUBJECTS}): past it, the window
   * opened longest ago is forgotten, and that subject starts afresh.
   */
  maxSubjects?: number;
};

/**
 * Fixed windows counted in this process's memory (the sandbox's twins; a single process only):
 * at most `rule.limit` requests of a subject per window of `rule.windowSeconds`. A subject's window
 * opens at its first request and the next one at its first request after that window ended, as
 * the in-memory limiter of `rate-limiter-flexible` (which Bluesky's PDS uses) does. It answers
 * synchronously.
 *
 * Windows are held in the order they opened, so the ones that ended are forgotten from the front
 * as new ones open, each visited once (a flood of new subjects costs the same per request as one
 * subject), and at most `maxSubjects` are held.
 */
export class MemoryFixedWindow implements RateLimiter {
  readonly rule: RateRule;
  private readonly maxSubjects: number;
  /** Each subject's window, oldest first (a window opened again moves to the back). */
  private readonly windows = new Map<string, Window>();

  constructor(
    rule: RateRule,
    private readonly clock: Clock = systemClock,
    options: MemoryFixedWindowOptions = {},
  ) {
    this.rule = checkedRule(rule);
    this.maxSubjects = checkedMaxSubjects(options.maxSubjects ?? MAX_SUBJECTS);
  }

  /** Subjects whose window is held (at most `maxSubjects`). */
  get size(): number {
    return this.windows.size;
  }

  /** Counts one request of `subject` now, or refuses it until its window ends. */
  take(subject: string): RateDecision {
    const now = this.clock.now();
    let window = this.windows.get(subject);
    if (!window || this.hasEnded(window, now)) window = this.open(subject, now);
    if (window.hits >= this.rule.limit) return fixedWindowDecision(undefined, this.rule, window.start, now);
    window.hits += 1;
    return fixedWindowDecision(window.hits, this.rule, window.start, now);
  }

  /** Forgets every subject's window (a sandbox reset). */
  clear(): void {
    this.windows.clear();
  }

  /** A new window of `subject` from `now`, behind every other, after forgetting what it may. */
  private open(subject: string, now: Date): Window {
    this.windows.delete(subject);
    this.forgetEnded(now);
    if (this.windows.size >= this.maxSubjects) this.forgetOldest();
    const window = { start: now, hits: 0 };
    this.windows.set(subject, window);
    return window;
  }

  /** Forgets the windows that have ended, oldest first, up to the first still open. */
  private forgetEnded(now: Date): void {
    for (const [subject, window] of this.windows) {
      if (!this.hasEnded(window, now)) return;
      this.windows.delete(subject);
    }
  }

  private forgetOldest(): void {
    const oldest = this.windows.keys().next();
    if (!oldest.done) this.windows.delete(oldest.value);
  }

  private hasEnded(window: Window, now: Date): boolean {
    return now.getTime() - window.start.getTime() >= this.rule.windowSeconds * 1000;
  }
}

function checkedMaxSubjects(maxSubjects: number): number {
  if (!Number.isInteger(maxSubjects) || maxSubjects < 1) {
    throw new RangeError(`A limiter must hold at least 1 subject, a whole number: ${maxSubjects}`);
  }
  return maxSubjects;
}
