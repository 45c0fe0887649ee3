import { formatDecimalUnits, parseDecimalUnits } from "@app/core";

/** Token amounts are integers of the token's smallest unit (6 decimals for USD tokens). */
export const USD_DECIMALS = 6;

/**
 * Converts a decimal USD string ("0.001") to atomic units (1000n at 6 decimals),
 * exactly, refusing more precision than the token has.
 */
export function usdToAtomic(usd: string, decimals = USD_DECIMALS): bigint {
  const atomic = parseDecimalUnits(usd, decimals);
  if (atomic === undefined) throw new Error(`Not a USD amount with at most ${decimals} decimals: ${usd}`);
  return atomic;
}

/** Atomic units back to the shortest decimal USD string (1000n → "0.001"). */
export function atomicToUsd(atomic: bigint, decimals = USD_DECIMALS): string {
  return formatDecimalUnits(atomic, decimals);
}
