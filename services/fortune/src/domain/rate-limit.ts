/** The rolling limit on successful premium fortunes, per category, shared by every instance. */
export type PremiumLimit = { perCategory: number; windowMs: number };

export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Decides from the times of the uses still inside the window (oldest first) whether
 * one more is allowed now, and if not, when the oldest use leaves the window.
 */
export function decideLimit(usesInWindow: Date[], limit: PremiumLimit, now: Date): LimitDecision {
  if (usesInWindow.length < limit.perCategory) return { allowed: true };
  const oldest = usesInWindow[usesInWindow.length - limit.perCategory] ?? usesInWindow[0];
  const freesAt = (oldest as Date).getTime() + limit.windowMs;
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now.getTime()) / 1000)) };
}
