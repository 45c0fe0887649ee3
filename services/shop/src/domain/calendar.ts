import { DateTime, IANAZone } from "luxon";

/** A calendar date, `YYYY-MM-DD`, read in some time zone (the shop's). */
export type LocalDate = string;

const LOCAL_DATE = /^\d{4}-\d{2}-\d{2}$/;
const MINUTES_PER_DAY = 1440;

/** The dates the service computes slots for; outside them there are none (and no date arithmetic to trip on). */
export const SUPPORTED_DATES = { first: "2000-01-01", last: "2999-12-31" } as const;

/** True for a real calendar date written `YYYY-MM-DD` (not `2026-02-30`). */
export function isLocalDate(text: string): boolean {
  return LOCAL_DATE.test(text) && DateTime.fromISO(text, { zone: "utc" }).isValid;
}

/** True for a real date within {@link SUPPORTED_DATES}. */
export function isSupportedDate(text: string): boolean {
  return isLocalDate(text) && text >= SUPPORTED_DATES.first && text <= SUPPORTED_DATES.last;
}

/**
 * True for an IANA time-zone name the runtime knows (`Europe/Berlin`, `Asia/Kolkata`, `UTC`).
 * Fixed offsets such as `+05:30` are refused: a shop's clock follows its region's rules.
 */
export function isTimeZone(name: string): boolean {
  return /^[A-Za-z]/.test(name) && IANAZone.isValidZone(name);
}

/** The date the clocks of a time zone show at an instant (with `now`: today there). */
export function dateIn(timeZone: string, instant: Date): LocalDate {
  return DateTime.fromJSDate(instant, { zone: timeZone }).toISODate() as LocalDate;
}

/** The date `days` after `date` (negative goes back). */
export function addDays(date: LocalDate, days: number): LocalDate {
  return DateTime.fromISO(date, { zone: "utc" }).plus({ days }).toISODate() as LocalDate;
}

/** ISO weekday of a date: 1 = Monday … 7 = Sunday. */
export function weekdayOf(date: LocalDate): number {
  return DateTime.fromISO(date, { zone: "utc" }).weekday;
}

/**
 * The instant at which the clocks of `timeZone` show `minutes` after midnight on `date`
 * (1440 is the next midnight). DST-safe: a wall time that never occurs (skipped when the
 * clocks go forward) moves forward by the gap; one that occurs twice (when they go back)
 * is its first occurrence.
 */
export function wallTimeToInstant(date: LocalDate, minutes: number, timeZone: string): Date {
  const day = minutes >= MINUTES_PER_DAY ? addDays(date, 1) : date;
  const ofDay = minutes % MINUTES_PER_DAY;
  const [year, month, dayOfMonth] = day.split("-").map(Number);
  const wall = { year, month, day: dayOfMonth, hour: Math.floor(ofDay / 60), minute: ofDay % 60 };
  const chosen = DateTime.fromObject(wall, { zone: timeZone });
  // Luxon takes the later reading of an ambiguous wall time; look for an earlier one.
  const offsetBefore = chosen.minus({ hours: 3 }).offset;
  if (offsetBefore !== chosen.offset) {
    const earlier = chosen.minus({ minutes: offsetBefore - chosen.offset });
    if (earlier.hour === chosen.hour && earlier.minute === chosen.minute && earlier < chosen) {
      return earlier.toJSDate();
    }
  }
  return chosen.toJSDate();
}

/** ISO 8601 with the zone's offset at that instant and no fraction: `2026-03-29T09:00:00+02:00`. */
export function formatInZone(instant: Date, timeZone: string): string {
  return DateTime.fromJSDate(instant, { zone: timeZone }).toISO({ suppressMilliseconds: true }) as string;
}
