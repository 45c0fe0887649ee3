import { parseDecimalUnits } from "@app/core";
import { formatUsd } from "../domain/money.ts";

/** The least credit one payment buys, in USD. */
export const CREDIT_MIN_USD = "0.01";
/** The most credit one payment buys, in USD. */
export const CREDIT_MAX_USD = "100";

const MIN_MICRO = 10_000n;
const MAX_MICRO = 100_000_000n;

/** A plain decimal: no sign, exponent, spaces or leading zeros, at most 6 decimals (micro-USD). */
const PLAIN_DECIMAL = /^(0|[1-9]\d{0,9})(\.\d{1,6})?$/;

/** A credit amount, exact: micro-USD (the token's atomic units too: 6 decimals) and its canonical decimal. */
export type CreditAmount = { micro: bigint; usd: string };

/**
 * Reads the amount of credit asked for ("0.50"): a plain decimal USD string with at most 6
 * decimals, from {@link CREDIT_MIN_USD} to {@link CREDIT_MAX_USD}; the reason it is refused otherwise.
 */
export function parseCreditAmount(text: string): CreditAmount | { refused: string } {
  const micro = PLAIN_DECIMAL.test(text) ? parseDecimalUnits(text, 6) : undefined;
  if (micro === undefined) {
    return {
      refused: 'must be a decimal USD amount such as "0.50": digits, at most 6 decimals, no sign or exponent',
    };
  }
  if (micro < MIN_MICRO || micro > MAX_MICRO) {
    return { refused: `must be from ${CREDIT_MIN_USD} to ${CREDIT_MAX_USD} USD` };
  }
  return { micro, usd: formatUsd(micro) };
}
