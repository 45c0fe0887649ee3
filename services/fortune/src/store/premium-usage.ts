import type { Clock } from "@app/core";
import { newId } from "@app/core";
import type { Database } from "@app/db";
import type { RateDecision } from "@app/edge";
import { decideLimit, type PremiumLimit, type PremiumRefusal } from "../domain/rate-limit.ts";

/**
 * Successful premium fortunes per category in a rolling window, shared through the
 * database by every instance.
 */
export class PremiumUsage {
  constructor(
    private readonly db: Database,
    private readonly limit: PremiumLimit,
    private readonly clock: Clock,
  ) {}

  /** Whether one more premium fortune of this category is allowed now (the check before any 402). */
  async check(category: string): Promise<RateDecision> {
    const now = this.clock.now();
    const uses = await this.usesInWindow(this.db, category, now);
    return decideLimit(uses, this.limit, now);
  }

  /**
   * Takes one use atomically (serialised per category across instances): returns
   * the use's id, or the refusal when the window is full.
   */
  async reserve(category: string, paymentId: string): Promise<{ id: string } | PremiumRefusal> {
    return this.db.transaction(async (tx) => {
      await tx.query("SELECT pg_advisory_xact_lock(hashtext('fortune.premium:' || $1))", [category]);
      const now = this.clock.now();
      const decision = decideLimit(await this.usesInWindow(tx, category, now), this.limit, now);
      if (!decision.allowed) return decision;
      const id = newId("use");
      await tx.query(
        "INSERT INTO fortune.premium_usage (id, category, payment_id, used_at) VALUES ($1, $2, $3, $4)",
        [id, category, paymentId, now],
      );
      return { id };
    });
  }

  /** Gives back the use a payment reserved, when the payment did not settle. */
  async releaseForPayment(paymentId: string): Promise<void> {
    await this.db.query("DELETE FROM fortune.premium_usage WHERE payment_id = $1", [paymentId]);
  }

  private async usesInWindow(db: Pick<Database, "query">, category: string, now: Date): Promise<Date[]> {
    const rows = await db.query<{ used_at: Date }>(
      "SELECT used_at FROM fortune.premium_usage WHERE category = $1 AND used_at > $2 ORDER BY used_at",
      [category, new Date(now.getTime() - this.limit.windowMs)],
    );
    return rows.map((row) => row.used_at);
  }
}
