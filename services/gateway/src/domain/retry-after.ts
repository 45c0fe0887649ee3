const DAY = "(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)";
const LONG_DAY = "(?:Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)";
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)";
const TIME = "\\d{2}:\\d{2}:\\d{2}";

/** RFC 9110's delta-seconds, up to 10 digits (centuries). */
const DELTA_SECONDS = /^\d{1,10}$/;

/** RFC 9110's HTTP-date: IMF-fixdate, and the obsolete RFC 850 and asctime forms a recipient must accept. */
const HTTP_DATES = [
  new RegExp(`^${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT$`),
  new RegExp(`^${LONG_DAY}, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT$`),
  new RegExp(`^${DAY} ${MONTH} (?: \\d|\\d{2}) ${TIME} \\d{4}$`),
];

/**
 * An upstream's `Retry-After` as the run envelope may carry it: delta-seconds, or an HTTP-date
 * that names a time, and never holding the caller's key (`secret`). Anything else is dropped
 * (undefined) rather than echoed: the header is the upstream's text, and an upstream may write
 * anything in it (the caller's key, say).
 */
export function upstreamRetryAfter(value: string | undefined, secret?: string): string | undefined {
  const trimmed = value?.trim();
  if (!trimmed || (secret && trimmed.includes(secret))) return undefined;
  if (DELTA_SECONDS.test(trimmed)) return trimmed;
  const isDate = HTTP_DATES.some((form) => form.test(trimmed)) && !Number.isNaN(Date.parse(trimmed));
  return isDate ? trimmed : undefined;
}
