import { atomicToUsd, usdToAtomic } from "../domain/money.ts";
import { FortuneError } from "../errors.ts";

/** What an `upto` handler has charged so far, never past the authorised maximum. */
export class ChargeMeter {
  private total = 0n;

  constructor(private readonly maxAtomic: bigint) {}

  /** Adds a charge; over the cap is a 400 `CHARGE_OVER_CAP` and nothing is settled. */
  charge(usd: string): void {
    const amount = usdToAtomic(usd);
    if (amount <= 0n) throw new Error(`A charge must be positive: ${usd}`);
    if (this.total + amount > this.maxAtomic) {
      throw new FortuneError(
        "CHARGE_OVER_CAP",
        `Charging ${usd} would pass the authorised ${atomicToUsd(this.maxAtomic)}.`,
      );
    }
    this.total += amount;
  }

  get charged(): bigint {
    return this.total;
  }
}
