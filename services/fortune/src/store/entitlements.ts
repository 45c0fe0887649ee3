import type { Queryable } from "@app/db";

/** Routes a wallet has paid for once and may call again with a SIWX signature. */
export class EntitlementStore {
  constructor(private readonly db: Queryable) {}

  async grant(wallet: string, route: string, paymentId: string): Promise<void> {
    await this.db.query(
      `INSERT INTO fortune.entitlements (wallet, route, payment_id) VALUES ($1, $2, $3)
       ON CONFLICT (wallet, route) DO NOTHING`,
      [wallet.toLowerCase(), route, paymentId],
    );
  }

  async has(wallet: string, route: string): Promise<boolean> {
    const rows = await this.db.query("SELECT 1 FROM fortune.entitlements WHERE wallet = $1 AND route = $2", [
      wallet.toLowerCase(),
      route,
    ]);
    return rows.length > 0;
  }
}
