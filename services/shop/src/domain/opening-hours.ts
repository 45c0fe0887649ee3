/** One opening window on a weekday: minutes after local midnight, `closesAt` up to 1440. */
export type OpeningWindow = { weekday: number; opensAt: number; closesAt: number };

/** A shop's week: any number of windows per ISO weekday (1 = Monday … 7 = Sunday); none is closed. */
export type WeeklyHours = readonly OpeningWindow[];

export const WEEKDAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

/** Thrown for opening hours that cannot be read or that overlap; the message says why. */
export class OpeningHoursError extends Error {
  override name = "OpeningHoursError";
}

const TIME = /^([01]\d|2[0-4]):([0-5]\d)$/;

function parseTime(text: string): number {
  const match = TIME.exec(text);
  const minutes = match ? Number(match[1]) * 60 + Number(match[2]) : Number.NaN;
  if (!match || minutes > 1440)
    throw new OpeningHoursError(`"${text}" is not a time between 00:00 and 24:00.`);
  return minutes;
}

function parseWeekday(text: string): number {
  const index = WEEKDAY_NAMES.indexOf(text.toLowerCase() as (typeof WEEKDAY_NAMES)[number]);
  if (index < 0)
    throw new OpeningHoursError(`"${text}" is not a weekday (mon, tue, wed, thu, fri, sat, sun).`);
  return index + 1;
}

function parseDays(text: string): number[] {
  const days = new Set<number>();
  for (const part of text.split(",")) {
    const [first, last, ...rest] = part.split("-");
    if (!first || rest.length > 0)
      throw new OpeningHoursError(`"${part}" is not a weekday or a range of them.`);
    const from = parseWeekday(first);
    const to = last === undefined ? from : parseWeekday(last);
    if (to < from)
      throw new OpeningHoursError(`"${part}" runs backwards; write it from Monday towards Sunday.`);
    for (let day = from; day <= to; day++) days.add(day);
  }
  return [...days];
}

function parseWindow(text: string): { opensAt: number; closesAt: number } {
  const [opens, closes, ...rest] = text.split("-");
  if (!opens || !closes || rest.length > 0)
    throw new OpeningHoursError(`"${text}" is not a window like 09:00-18:00.`);
  const window = { opensAt: parseTime(opens), closesAt: parseTime(closes) };
  if (window.opensAt >= window.closesAt) {
    throw new OpeningHoursError(
      `"${text}" closes before it opens; a window ends on the day it starts (24:00 at most).`,
    );
  }
  return window;
}

/** Throws when two windows of one weekday overlap. */
export function assertNoOverlap(hours: WeeklyHours): void {
  const sorted = [...hours].sort((a, b) => a.weekday - b.weekday || a.opensAt - b.opensAt);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1] as OpeningWindow;
    const current = sorted[i] as OpeningWindow;
    if (previous.weekday === current.weekday && current.opensAt < previous.closesAt) {
      throw new OpeningHoursError(`Two windows overlap on ${WEEKDAY_NAMES[current.weekday - 1]}.`);
    }
  }
}

/**
 * Reads weekly hours written as `mon-fri 09:00-12:30 13:30-18:00; sat 10:00-14:00`: entries
 * separated by `;`, each a weekday, a range or a comma list of them, then one or more windows.
 * Days not named are closed. Windows of one day may not overlap.
 */
export function parseWeeklyHours(text: string): OpeningWindow[] {
  const hours: OpeningWindow[] = [];
  for (const entry of text.split(";").map((part) => part.trim())) {
    if (entry === "") continue;
    const [days, ...windows] = entry.split(/\s+/);
    if (!days || windows.length === 0)
      throw new OpeningHoursError(`"${entry}" needs days and at least one window.`);
    for (const weekday of parseDays(days)) {
      for (const window of windows) hours.push({ weekday, ...parseWindow(window) });
    }
  }
  assertNoOverlap(hours);
  return hours.sort((a, b) => a.weekday - b.weekday || a.opensAt - b.opensAt);
}

const pad = (n: number) => String(n).padStart(2, "0");
const clock = (minutes: number) => `${pad(Math.floor(minutes / 60))}:${pad(minutes % 60)}`;

/** Writes weekly hours back in the form {@link parseWeeklyHours} reads, one entry per open day. */
export function formatWeeklyHours(hours: WeeklyHours): string {
  const entries: string[] = [];
  for (let weekday = 1; weekday <= 7; weekday++) {
    const windows = hours.filter((w) => w.weekday === weekday).sort((a, b) => a.opensAt - b.opensAt);
    if (windows.length === 0) continue;
    const written = windows.map((w) => `${clock(w.opensAt)}-${clock(w.closesAt)}`).join(" ");
    entries.push(`${WEEKDAY_NAMES[weekday - 1]} ${written}`);
  }
  return entries.join("; ");
}
