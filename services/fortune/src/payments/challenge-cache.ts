/**
 * Unpaid challenges of fixed offers, kept for a few seconds. A plain 402 (no error,
 * no sign-in nonce) is the same for every caller of a route at a price: its x402
 * requirements never change, and an MPP challenge is stateless (HMAC-bound) and
 * valid 5 minutes, so reusing one for seconds costs clients nothing and spares
 * building both on every probe.
 */
export class ChallengeCache<T> {
  private readonly entries = new Map<string, { value: Promise<T>; expiresAt: number }>();

  constructor(
    private readonly ttlMs = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached value for `key`, or the one `build` makes (a failed build is not kept). */
  get(key: string, build: () => Promise<T>): Promise<T> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expiresAt > now) return hit.value;
    const value = build();
    this.entries.set(key, { value, expiresAt: now + this.ttlMs });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}
