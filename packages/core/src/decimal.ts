/**
 * Exact decimal amounts held as integers of their smallest unit (micro-USD, a token's atomic
 * units, a currency's minor units): the one parser and formatter every service's money goes
 * through. No float ever touches an amount.
 */

/** How a decimal text may look: at most `maxWholeDigits` digits before the point (unbounded when absent). */
export type DecimalTextLimits = { maxWholeDigits?: number };

/**
 * Reads a plain non-negative decimal ("12", "0.000001", "2500.50") as an integer of units with
 * `decimals` digits after the point, exactly. Undefined for anything else: a sign, an exponent,
 * spaces, more than `decimals` digits after the point, more whole digits than allowed.
 */
export function parseDecimalUnits(
  text: string,
  decimals: number,
  limits: DecimalTextLimits = {},
): bigint | undefined {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const [, whole = "", fraction = ""] = match;
  if (fraction.length > decimals) return undefined;
  if (limits.maxWholeDigits !== undefined && whole.length > limits.maxWholeDigits) return undefined;
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, "0") || "0");
}

/**
 * Units back to decimal text: the shortest exact form by default (1_500_000n at 6 → "1.5",
 * -250n → "-0.00025", 0n → "0"), or with all `decimals` digits when `fixed` (2550n at 2 → "25.50").
 */
export function formatDecimalUnits(
  units: bigint,
  decimals: number,
  options: { fixed?: boolean } = {},
): string {
  const sign = units < 0n ? "-" : "";
  const magnitude = units < 0n ? -units : units;
  const base = 10n ** BigInt(decimals);
  const digits = decimals === 0 ? "" : (magnitude % base).toString().padStart(decimals, "0");
  const fraction = options.fixed ? digits : digits.replace(/0+$/, "");
  return `${sign}${magnitude / base}${fraction ? `.${fraction}` : ""}`;
}
