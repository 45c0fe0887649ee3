import { formatDecimalUnits, parseDecimalUnits } from "@app/core";

/** A price as the API shows it: a decimal string in the currency's own minor digits. */
export type Price = { amount: string; currency: string };

const KNOWN_CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

/** True for an ISO 4217 code the runtime knows (`EUR`, `JPY`, `INR`). */
export function isCurrency(code: string): boolean {
  return /^[A-Z]{3}$/.test(code) && KNOWN_CURRENCIES.has(code);
}

/** How many decimal digits the currency's minor unit has (EUR 2, JPY 0, BHD 3). */
export function minorDigits(currency: string): number {
  return (
    new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2
  );
}

/** Thrown for an amount that is not a plain non-negative decimal in the currency's digits. */
export class PriceError extends Error {
  override name = "PriceError";
}

/** `"25.50"` EUR → 2550 minor units. At most the currency's minor digits; no sign, no exponent. */
export function toMinorUnits(amount: string, currency: string): number {
  const digits = minorDigits(currency);
  const units = parseDecimalUnits(amount, digits, { maxWholeDigits: 9 });
  if (units === undefined) {
    throw new PriceError(`"${amount}" is not an amount in ${currency} (up to ${digits} decimals).`);
  }
  return Number(units);
}

/** 2550 minor units of EUR → `{amount: "25.50", currency: "EUR"}`. */
export function toPrice(minorUnits: number, currency: string): Price {
  return { amount: formatDecimalUnits(BigInt(minorUnits), minorDigits(currency), { fixed: true }), currency };
}
