/** The longest period one usage report covers. */
export const MAX_USAGE_DAYS = 366;

const DAY_MS = 86_400_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-](\d{2}):(\d{2}))$/;

/** A period of time: from `from` (inclusive) to `to` (exclusive). */
export type UsageRange = { from: Date; to: Date };

export type UsageRangeResult =
  | { ok: true; range: UsageRange }
  | { ok: false; path: "from" | "to"; message: string };

/** Midnight UTC of a calendar date, or undefined when the date does not exist (2026-02-30). */
function utcMidnight(year: number, month: number, day: number): number | undefined {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  const exists =
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return exists ? date.getTime() : undefined;
}

/**
 * An ISO 8601 date (`2026-05-01`, midnight UTC; as `to`, the end of that day) or date-time with
 * its zone (`2026-05-01T12:00:00Z`, `…+02:00`; to the millisecond), as epoch milliseconds.
 */
export function parseInstant(text: string, endOfDay: boolean): number | undefined {
  const date = DATE.exec(text);
  if (date) {
    const midnight = utcMidnight(Number(date[1]), Number(date[2]), Number(date[3]));
    return midnight === undefined ? undefined : midnight + (endOfDay ? DAY_MS : 0);
  }
  const parts = DATE_TIME.exec(text);
  if (!parts) return undefined;
  const [, year, month, day, hour, minute, second = "0", fraction = "", zone, zoneHours, zoneMinutes] = parts;
  const midnight = utcMidnight(Number(year), Number(month), Number(day));
  if (midnight === undefined || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59)
    return undefined;
  if (Number(zoneHours ?? 0) > 23 || Number(zoneMinutes ?? 0) > 59) return undefined;
  const offsetMinutes =
    zone === "Z" ? 0 : (zone?.startsWith("-") ? -1 : 1) * (Number(zoneHours) * 60 + Number(zoneMinutes));
  const millis = Number(fraction.padEnd(3, "0").slice(0, 3));
  return (
    midnight + ((Number(hour) * 60 + Number(minute) - offsetMinutes) * 60 + Number(second)) * 1000 + millis
  );
}

/**
 * The instants a period may name: the years 0001 to 9999 (UTC), to the millisecond. The database
 * has no year 0 and writes no year past 9999 in its text format; outside them a period is refused
 * (a 400), never handed to it.
 */
const EARLIEST_MS = new Date(0).setUTCFullYear(1, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** The first instant of the UTC month `now` is in, and of the month after. */
function monthOf(now: Date): UsageRange {
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth();
  const start = new Date(0);
  start.setUTCFullYear(year, month, 1);
  const end = new Date(0);
  end.setUTCFullYear(year, month + 1, 1);
  return { from: start, to: end };
}

/**
 * The period a usage report covers: `from` (inclusive) defaults to the start of the current UTC
 * month, `to` (exclusive; a date alone means the end of that day) to the start of the next. Both
 * lie in the years 0001 to 9999 (`to` at most 9999-12-31T23:59:59.999Z, so a `to` date of
 * 9999-12-31, whose end is in year 10000, is refused); `to` must come after `from`, at most
 * {@link MAX_USAGE_DAYS} days later.
 */
export function usageRange(query: { from?: string; to?: string }, now: Date): UsageRangeResult {
  const month = monthOf(now);
  const from = query.from === undefined ? month.from.getTime() : parseInstant(query.from, false);
  if (from === undefined) {
    return {
      ok: false,
      path: "from",
      message: "must be an ISO 8601 date (2026-05-01) or date-time with a zone (2026-05-01T00:00:00Z)",
    };
  }
  const to = query.to === undefined ? month.to.getTime() : parseInstant(query.to, true);
  if (to === undefined) {
    return {
      ok: false,
      path: "to",
      message: "must be an ISO 8601 date (2026-05-31) or date-time with a zone (2026-06-01T00:00:00Z)",
    };
  }
  if (from < EARLIEST_MS || from > LATEST_MS) {
    return { ok: false, path: "from", message: "must be in the years 0001 to 9999 (UTC)" };
  }
  if (to < EARLIEST_MS || to > LATEST_MS) {
    return {
      ok: false,
      path: "to",
      message: "must be in the years 0001 to 9999 (UTC), at most 9999-12-31T23:59:59.999Z",
    };
  }
  if (to <= from) return { ok: false, path: "to", message: "must come after from" };
  if (to - from > MAX_USAGE_DAYS * DAY_MS) {
    return { ok: false, path: "to", message: `must be at most ${MAX_USAGE_DAYS} days after from` };
  }
  return { ok: true, range: { from: new Date(from), to: new Date(to) } };
}
