import type { RateDecision } from "@app/edge";

/** The rolling limit on successful premium fortunes, per category, shared by every instance. */
export type PremiumLimit = { perCategory: number; windowMs: number };

/** A category's limit reached: the shared refusal, with when a use leaves the window. */
export type PremiumRefusal = Extract<RateDecision, { allowed: false }>;

/** Whole seconds from `now` until `atMs`, at least 1. */
const secondsUntil = (atMs: number, now: Date) => Math.max(1, Math.ceil((atMs - now.getTime()) / 1000));

/**
 * Decides from the times of the uses still inside the window (oldest first) whether one more is
 * allowed now, in the platform's shape: what would be left after it, when every use has left the
 * window (`resetSeconds`), and if refused, when the use that must leave does leave.
 */
export function decideLimit(usesInWindow: Date[], limit: PremiumLimit, now: Date): RateDecision {
  const used = usesInWindow.length;
  if (used < limit.perCategory) {
    return {
      allowed: true,
      limit: limit.perCategory,
      remaining: limit.perCategory - used - 1,
      resetSeconds: secondsUntil(now.getTime() + limit.windowMs, now),
    };
  }
  const oldest = usesInWindow[used - limit.perCategory] ?? usesInWindow[0];
  const newest = usesInWindow[used - 1];
  return {
    allowed: false,
    limit: limit.perCategory,
    remaining: 0,
    resetSeconds: secondsUntil((newest as Date).getTime() + limit.windowMs, now),
    retryAfterSeconds: secondsUntil((oldest as Date).getTime() + limit.windowMs, now),
  };
}
