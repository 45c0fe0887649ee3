import { DateTime, IANAZone } from "luxon";
import { isIanaTimeZone } from "./time-zone.ts";

/** How the queue lays out slots: posts a day, the weekdays allowed (0 = Sunday … 6 = Saturday), the zone. */
export type QueueSettings = { postsPerDay: 1 | 2 | 3; allowedDays: number[]; timeZone: string };

/** The account default (DECISIONS.md): one post a day, every day, in UTC. */
export const DEFAULT_QUEUE_SETTINGS: QueueSettings = {
  postsPerDay: 1,
  allowedDays: [0, 1, 2, 3, 4, 5, 6],
  timeZone: "UTC",
};

/** Local slot times by posts a day, as [hour, minute]. */
export const SLOT_TIMES: Record<QueueSettings["postsPerDay"], ReadonlyArray<readonly [number, number]>> = {
  1: [[9, 0]],
  2: [
    [9, 0],
    [17, 0],
  ],
  3: [
    [9, 0],
    [13, 0],
    [18, 0],
  ],
};

/** How far ahead the queue looks for a free slot. */
export const QUEUE_HORIZON_DAYS = 90;

/** An IANA time zone name, spelled as IANA does (`UTC` included; no offsets): see time-zone.ts. */
export const isTimeZone = (zone: string): boolean => isIanaTimeZone(zone) && IANAZone.isValidZone(zone);

/** A calendar date (year, month 1–12, day) and its weekday (0 = Sunday). */
type CalendarDay = { year: number; month: number; day: number; weekday: number };

/**
 * The calendar date `offset` days after `start`. Calendar arithmetic is the same in every zone,
 * so it is done on a UTC date (cheap) rather than on a zoned luxon DateTime.
 */
function addDays(start: { year: number; month: number; day: number }, offset: number): CalendarDay {
  const date = new Date(Date.UTC(start.year, start.month - 1, start.day + offset));
  return {
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    weekday: date.getUTCDay(),
  };
}

/** The slot instants of one local calendar day, in time order. */
function slotsOfDay(day: CalendarDay, settings: QueueSettings): Date[] {
  return SLOT_TIMES[settings.postsPerDay].map(([hour, minute]) =>
    // A local time that a DST jump skips is moved forward by the jump (02:30 → 03:30), as luxon does.
    DateTime.fromObject(
      { year: day.year, month: day.month, day: day.day, hour, minute },
      { zone: settings.timeZone },
    ).toJSDate(),
  );
}

/** How many (schedule, local day) horizons {@link candidateSlots} keeps; the oldest goes first. */
const HORIZON_CACHE_SIZE = 1024;
const horizons = new Map<string, readonly number[]>();

/**
 * The slot instants (epoch ms, in time order) of the horizon's local days from `today`. Working
 * them out takes a zoned date per slot (a few hundred); they depend only on the schedule and the
 * local date, so each is worked out once and remembered: an account queuing many posts in a day
 * pays for it once.
 */
function horizonSlots(today: CalendarDay, settings: QueueSettings, horizon: number): readonly number[] {
  const key = [
    settings.timeZone,
    settings.postsPerDay,
    settings.allowedDays.join(","),
    horizon,
    today.year,
    today.month,
    today.day,
  ].join("|");
  const known = horizons.get(key);
  if (known) return known;
  const slots: number[] = [];
  for (let offset = 0; offset <= horizon; offset += 1) {
    const day = addDays(today, offset);
    if (!settings.allowedDays.includes(day.weekday)) continue;
    for (const slot of slotsOfDay(day, settings)) slots.push(slot.getTime());
  }
  if (horizons.size >= HORIZON_CACHE_SIZE) horizons.delete(horizons.keys().next().value as string);
  horizons.set(key, slots);
  return slots;
}

/** The index of the first of the ascending `instants` strictly after `after` (their length if none). */
function firstIndexAfter(instants: readonly number[], after: number): number {
  let low = 0;
  let high = instants.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((instants[middle] as number) > after) high = middle;
    else low = middle + 1;
  }
  return low;
}

/**
 * Every slot strictly after `now` over the horizon, in time order: the instants the queue may
 * choose from (a few hundred at most), so the database is asked about those instants only.
 */
export function candidateSlots(input: { now: Date; settings: QueueSettings; horizonDays?: number }): Date[] {
  const { now, settings } = input;
  const local = DateTime.fromJSDate(now, { zone: settings.timeZone });
  const today = { year: local.year, month: local.month, day: local.day, weekday: local.weekday % 7 };
  const slots = horizonSlots(today, settings, input.horizonDays ?? QUEUE_HORIZON_DAYS);
  return slots.slice(firstIndexAfter(slots, now.getTime())).map((instant) => new Date(instant));
}

/**
 * The first slot strictly after `now` that no post in `taken` (epoch milliseconds) occupies,
 * searching local days from today (in the settings' zone) for `horizonDays`; undefined when
 * every slot of the horizon is taken. Slot times are local wall-clock times, so they keep their
 * hour across a DST change while their UTC instant moves.
 */
export function nextFreeSlot(input: {
  now: Date;
  settings: QueueSettings;
  taken: ReadonlySet<number>;
  horizonDays?: number;
}): Date | undefined {
  return candidateSlots(input).find((slot) => !input.taken.has(slot.getTime()));
}
