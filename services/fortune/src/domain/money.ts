/** Token amounts are integers of the token's smallest unit (6 decimals for USD tokens). */
export const USD_DECIMALS = 6;

/**
 * Converts a decimal USD string ("0.001") to atomic units (1000n at 6 decimals),
 * exactly, refusing more precision than the token has.
 */
export function usdToAtomic(usd: string, decimals = USD_DECIMALS): bigint {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(usd);
  if (!match) throw new Error(`Not a USD amount: ${usd}`);
  const [, whole, fraction = ""] = match;
  if (fraction.length > decimals) throw new Error(`More than ${decimals} decimals: ${usd}`);
  return BigInt(whole as string) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/** Atomic units back to the shortest decimal USD string (1000n → "0.001"). */
export function atomicToUsd(atomic: bigint, decimals = USD_DECIMALS): string {
  const base = 10n ** BigInt(decimals);
  const whole = atomic / base;
  const fraction = (atomic % base).toString().padStart(decimals, "0").replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole.toString();
}
