import { type Clock, systemClock } from "@app/core";
import { fixedWindowDecision } from "./fixed-window.ts";
import { checkedRule } from "./limiter-options.ts";
import type { RateDecision, RateLimiter, RateRule } from "./rate-limiter.ts";

type Window = { start: Date; hits: number };

/** Subjects held before windows that have ended are swept out. */
const SWEEP_ABOVE = 10_000;

/**
 * Fixed windows counted in this process's memory (the sandbox's twins; a single process only):
 * at most `rule.limit` requests of a subject per window of `rule.windowSeconds`. A subject's window
 * opens at its first request and the next one at its first request after that window ended, as
 * the in-memory limiter of `rate-limiter-flexible` (which Bluesky's PDS uses) does. It answers
 * synchronously.
 */
export class MemoryFixedWindow implements RateLimiter {
  readonly rule: RateRule;
  private readonly windows = new Map<string, Window>();

  constructor(
    rule: RateRule,
    private readonly clock: Clock = systemClock,
  ) {
    this.rule = checkedRule(rule);
  }

  /** Counts one request of `subject` now, or refuses it until its window ends. */
  take(subject: string): RateDecision {
    const now = this.clock.now();
    let window = this.windows.get(subject);
    if (!window || this.hasEnded(window, now)) {
      if (!window && this.windows.size >= SWEEP_ABOVE) this.sweep(now);
      window = { start: now, hits: 0 };
      this.windows.set(subject, window);
    }
    if (window.hits >= this.rule.limit) return fixedWindowDecision(undefined, this.rule, window.start, now);
    window.hits += 1;
    return fixedWindowDecision(window.hits, this.rule, window.start, now);
  }

  /** Forgets every subject's window (a sandbox reset). */
  clear(): void {
    this.windows.clear();
  }

  private hasEnded(window: Window, now: Date): boolean {
    return now.getTime() - window.start.getTime() >= this.rule.windowSeconds * 1000;
  }

  private sweep(now: Date): void {
    for (const [subject, window] of this.windows) {
      if (this.hasEnded(window, now)) this.windows.delete(subject);
    }
  }
}
