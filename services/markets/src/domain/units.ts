/**
 * Exact units of the paper-trading money paths. Every amount is an integer:
 * USD in micro-USD, shares in micro-shares, prices in cents (the 0.01 tick grid).
 * Shares trade in lots of 0.01, so a fill's cost (lot × tick) is always a whole number
 * of micro-USD and no rounding happens when filling.
 */

import { formatDecimalUnits, parseDecimalUnits } from "@app/core";

/** One USD, or one share, in micro units. */
export const MICRO = 1_000_000n;
/** The smallest tradable quantity: 0.01 share. */
export const LOT_MICRO_SHARES = 10_000n;
/** Prices lie on the 0.01 grid, 1..99 cents for a live book. */
export const TICK_CENTS = 1;
export const MIN_PRICE_CENTS = 1;
export const MAX_PRICE_CENTS = 99;

/** Parses a non-negative decimal string with at most 6 decimals ("12.5") to micro units (12_500_000n). */
export function parseMicro(text: string): bigint | undefined {
  return parseDecimalUnits(text, 6, { maxWholeDigits: 12 });
}

/** Micro units to the shortest decimal string (12_500_000n → "12.5", -1n → "-0.000001"). */
export function formatMicro(micro: bigint): string {
  return formatDecimalUnits(micro, 6);
}

/** Cents to the decimal price string of the CLOB ("0.37", "0.5", "1"). */
export function formatCents(cents: number): string {
  return formatMicro(BigInt(cents) * 10_000n);
}

/** Tenths of a cent (a midpoint may fall between ticks) to a decimal string ("0.375"). */
export function formatMills(mills: number): string {
  return formatMicro(BigInt(mills) * 1_000n);
}

/** What `shares` micro-shares cost at `cents`: exact when shares are whole lots. */
export function notionalMicro(sharesMicro: bigint, cents: number): bigint {
  return (sharesMicro * BigInt(cents)) / 100n;
}

/** What `shares` micro-shares are worth at `mills` (tenths of a cent): exact for whole lots. */
export function valueAtMills(sharesMicro: bigint, mills: number): bigint {
  return (sharesMicro * BigInt(mills)) / 1000n;
}

/** `numerator / denominator` rounded half away from zero (for displayed ratios and pro-rata splits). */
export function divideRounded(numerator: bigint, denominator: bigint): bigint {
  if (denominator === 0n) throw new RangeError("division by zero");
  const negative = numerator < 0n !== denominator < 0n;
  const n = numerator < 0n ? -numerator : numerator;
  const d = denominator < 0n ? -denominator : denominator;
  const rounded = (2n * n + d) / (2n * d);
  return negative ? -rounded : rounded;
}

/** A USD-per-share ratio (cost / shares) as a decimal string with at most 6 decimals. */
export function formatRatio(numeratorMicro: bigint, denominatorMicro: bigint): string {
  return formatMicro(divideRounded(numeratorMicro * MICRO, denominatorMicro));
}

/** True when a share quantity is a positive whole number of lots. */
export function isWholeLots(sharesMicro: bigint): boolean {
  return sharesMicro > 0n && sharesMicro % LOT_MICRO_SHARES === 0n;
}
