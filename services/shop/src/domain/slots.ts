import { addDays, type LocalDate, wallTimeToInstant, weekdayOf } from "./calendar.ts";
import type { WeeklyHours } from "./opening-hours.ts";

const MINUTE_MS = 60_000;

/** What slot computation needs of a service. */
export type ServiceShape = { durationMinutes: number; capacity: number };

/** A booking as far as availability cares: the time it holds and how many places. */
export type HeldPlaces = { start: Date; end: Date; partySize: number };

/** The shop's calendar: its zone, weekly hours and closed days. */
export type ShopCalendar = {
  timeZone: string;
  hours: WeeklyHours;
  /** Local dates on which the shop is closed. */
  closures: ReadonlySet<LocalDate>;
};

export type SlotQuery = {
  calendar: ShopCalendar;
  service: ServiceShape;
  /** Bookings of the service that may overlap the searched days (others are ignored). */
  bookings: readonly HeldPlaces[];
  /** First local date searched. */
  from: LocalDate;
  /** How many local dates are searched, `from` included. */
  days: number;
  partySize: number;
  now: Date;
};

/** An open slot: its instants and the places still free in it. */
export type Slot = { start: Date; end: Date; capacityLeft: number };

/**
 * The instants bounding the searched days: from midnight of `from` to midnight after the last
 * day, in the shop's zone. Bookings overlapping this range are the ones {@link openSlots} needs.
 */
export function searchRange(timeZone: string, from: LocalDate, days: number): { start: Date; end: Date } {
  return {
    start: wallTimeToInstant(from, 0, timeZone),
    end: wallTimeToInstant(addDays(from, days), 0, timeZone),
  };
}

function placesHeld(bookings: readonly HeldPlaces[], start: number, end: number): number {
  let held = 0;
  for (const booking of bookings) {
    if (booking.start.getTime() < end && booking.end.getTime() > start) held += booking.partySize;
  }
  return held;
}

/**
 * The open slots of a service, in time order. Each local day's windows are laid out in the
 * shop's zone (DST-safe); closed days have none. In each window, slots start at its opening and
 * follow one another back to back, each lasting the service's duration in real time, the last
 * ending by the window's close. A slot is open when it starts at or after `now` and the
 * bookings overlapping it leave at least `partySize` places of the service's capacity.
 */
export function openSlots(query: SlotQuery): Slot[] {
  const { calendar, service, bookings, partySize } = query;
  const durationMs = service.durationMinutes * MINUTE_MS;
  const now = query.now.getTime();
  const slots: Slot[] = [];
  for (let offset = 0; offset < query.days; offset++) {
    const date = addDays(query.from, offset);
    if (calendar.closures.has(date)) continue;
    const weekday = weekdayOf(date);
    const windows = calendar.hours
      .filter((window) => window.weekday === weekday)
      .sort((a, b) => a.opensAt - b.opensAt);
    for (const window of windows) {
      const opens = wallTimeToInstant(date, window.opensAt, calendar.timeZone).getTime();
      const closes = wallTimeToInstant(date, window.closesAt, calendar.timeZone).getTime();
      for (let start = opens; start + durationMs <= closes; start += durationMs) {
        if (start < now) continue;
        const capacityLeft = service.capacity - placesHeld(bookings, start, start + durationMs);
        if (capacityLeft >= partySize) {
          slots.push({ start: new Date(start), end: new Date(start + durationMs), capacityLeft });
        }
      }
    }
  }
  return slots;
}

/** The open slot starting exactly at `start`, if there is one. */
export function slotStartingAt(slots: readonly Slot[], start: Date): Slot | undefined {
  return slots.find((slot) => slot.start.getTime() === start.getTime());
}
