import { formatDecimalUnits, parseDecimalUnits } from "@app/core";

/**
 * Money on the gateway is an integer number of micro-USD (`bigint`): a balance, a price, a ledger
 * amount. Decimal strings exist only at the edges (config, CLI, JSON); no float touches money.
 */
export const MICRO_PER_USD = 1_000_000n;

/** The most a single amount may be: a billion USD, far beyond any balance, far within bigint. */
export const MAX_MICRO = 1_000_000_000n * MICRO_PER_USD;

/** A USD amount as rendered in responses: `{amount: "0.25", currency: "USD"}`. */
export type UsdAmount = { amount: string; currency: "USD" };

/**
 * Reads a non-negative decimal USD amount ("12", "0.000001", "2500.50") as micro-USD, exactly.
 * Undefined for anything else: signs, exponents, more than 6 decimals, more than {@link MAX_MICRO}.
 */
export function parseUsd(text: string): bigint | undefined {
  const micro = parseDecimalUnits(text.trim(), 6, { maxWholeDigits: 10 });
  return micro !== undefined && micro <= MAX_MICRO ? micro : undefined;
}

/** Micro-USD as the shortest exact decimal string (1_500_000n → "1.5", 0n → "0", -250n → "-0.00025"). */
export function formatUsd(micro: bigint): string {
  return formatDecimalUnits(micro, 6);
}

/** Micro-USD as the response shape `{amount, currency: "USD"}`. */
export function usd(micro: bigint): UsdAmount {
  return { amount: formatUsd(micro), currency: "USD" };
}
