import { describe, expect, test } from "vitest";
import { formatInZone } from "../../src/domain/calendar.ts";
import { parseWeeklyHours } from "../../src/domain/opening-hours.ts";
import { type HeldPlaces, openSlots, type SlotQuery, searchRange } from "../../src/domain/slots.ts";

const LONG_AGO = new Date("2000-01-01T00:00:00Z");

function slots(overrides: Partial<SlotQuery> & { timeZone?: string; hours?: string; closures?: string[] }) {
  const { timeZone = "Europe/Berlin", hours = "mon-sun 09:00-17:00", closures = [], ...rest } = overrides;
  return openSlots({
    calendar: { timeZone, hours: parseWeeklyHours(hours), closures: new Set(closures) },
    service: { durationMinutes: 60, capacity: 1 },
    bookings: [],
    from: "2026-06-15",
    days: 1,
    partySize: 1,
    now: LONG_AGO,
    ...rest,
  });
}

const startsIn = (timeZone: string, list: ReturnType<typeof openSlots>) =>
  list.map((slot) => formatInZone(slot.start, timeZone));

describe("Europe/Berlin across the spring-forward change (29 March 2026, 02:00 → 03:00)", () => {
  test("a shop open around the clock has 23 one-hour slots on the short Sunday", () => {
    const list = slots({ hours: "sun 00:00-24:00", from: "2026-03-29" });
    expect(list).toHaveLength(23);
    expect(startsIn("Europe/Berlin", list).slice(0, 3)).toEqual([
      "2026-03-29T00:00:00+01:00",
      "2026-03-29T01:00:00+01:00",
      "2026-03-29T03:00:00+02:00",
    ]);
    expect(formatInZone(list.at(-1)?.end as Date, "Europe/Berlin")).toBe("2026-03-30T00:00:00+02:00");
  });

  test("weekly hours keep their wall-clock times through the week while the offset changes", () => {
    const list = slots({
      hours: "mon-sun 09:00-10:00",
      service: { durationMinutes: 30, capacity: 1 },
      from: "2026-03-27",
      days: 4,
    });
    expect(startsIn("Europe/Berlin", list)).toEqual([
      "2026-03-27T09:00:00+01:00",
      "2026-03-27T09:30:00+01:00",
      "2026-03-28T09:00:00+01:00",
      "2026-03-28T09:30:00+01:00",
      "2026-03-29T09:00:00+02:00",
      "2026-03-29T09:30:00+02:00",
      "2026-03-30T09:00:00+02:00",
      "2026-03-30T09:30:00+02:00",
    ]);
    expect(list[4]?.start.toISOString()).toBe("2026-03-29T07:00:00.000Z");
  });

  test("a window opening in the skipped hour opens when the clocks have jumped", () => {
    const list = slots({
      hours: "sun 02:30-04:00",
      service: { durationMinutes: 30, capacity: 1 },
      from: "2026-03-29",
    });
    expect(startsIn("Europe/Berlin", list)).toEqual(["2026-03-29T03:30:00+02:00"]);
  });
});

describe("Europe/Berlin across the fall-back change (25 October 2026, 03:00 → 02:00)", () => {
  test("a shop open around the clock has 25 one-hour slots on the long Sunday, the repeated hour twice", () => {
    const list = slots({ hours: "sun 00:00-24:00", from: "2026-10-25" });
    expect(list).toHaveLength(25);
    expect(startsIn("Europe/Berlin", list).slice(1, 5)).toEqual([
      "2026-10-25T01:00:00+02:00",
      "2026-10-25T02:00:00+02:00",
      "2026-10-25T02:00:00+01:00",
      "2026-10-25T03:00:00+01:00",
    ]);
  });

  test("weekly hours keep their wall-clock times through the week while the offset changes", () => {
    const list = slots({ hours: "mon-sun 17:00-18:00", from: "2026-10-24", days: 3 });
    expect(startsIn("Europe/Berlin", list)).toEqual([
      "2026-10-24T17:00:00+02:00",
      "2026-10-25T17:00:00+01:00",
      "2026-10-26T17:00:00+01:00",
    ]);
  });

  test("a window in the repeated hour starts at its first occurrence and lasts both", () => {
    const list = slots({ hours: "sun 02:00-03:00", from: "2026-10-25" });
    expect(startsIn("Europe/Berlin", list)).toEqual([
      "2026-10-25T02:00:00+02:00",
      "2026-10-25T02:00:00+01:00",
    ]);
  });
});

describe("Asia/Kolkata, half an hour off whole-hour zones (+05:30)", () => {
  test("slots sit at the shop's wall-clock times and carry the +05:30 offset", () => {
    const list = slots({
      timeZone: "Asia/Kolkata",
      hours: "mon-fri 09:30-12:00",
      service: { durationMinutes: 45, capacity: 1 },
    });
    expect(
      list.map((slot) => [formatInZone(slot.start, "Asia/Kolkata"), formatInZone(slot.end, "Asia/Kolkata")]),
    ).toEqual([
      ["2026-06-15T09:30:00+05:30", "2026-06-15T10:15:00+05:30"],
      ["2026-06-15T10:15:00+05:30", "2026-06-15T11:00:00+05:30"],
      ["2026-06-15T11:00:00+05:30", "2026-06-15T11:45:00+05:30"],
    ]);
    expect(list[0]?.start.toISOString()).toBe("2026-06-15T04:00:00.000Z");
  });

  test("the searched range runs from local midnight to local midnight", () => {
    const range = searchRange("Asia/Kolkata", "2026-06-15", 2);
    expect(range.start.toISOString()).toBe("2026-06-14T18:30:00.000Z");
    expect(range.end.toISOString()).toBe("2026-06-16T18:30:00.000Z");
  });
});

describe("opening hours, closures and days", () => {
  test("a day with a lunch break has slots in both windows and none across the break", () => {
    const list = slots({ hours: "mon 09:00-11:00 12:00-13:30" });
    expect(startsIn("Europe/Berlin", list)).toEqual([
      "2026-06-15T09:00:00+02:00",
      "2026-06-15T10:00:00+02:00",
      "2026-06-15T12:00:00+02:00",
    ]);
  });

  test("a closure removes its whole day and nothing else", () => {
    const list = slots({
      hours: "mon-sun 09:00-10:00",
      from: "2026-06-15",
      days: 3,
      closures: ["2026-06-16"],
    });
    expect(startsIn("Europe/Berlin", list)).toEqual([
      "2026-06-15T09:00:00+02:00",
      "2026-06-17T09:00:00+02:00",
    ]);
  });

  test("days the weekly hours leave out have no slots", () => {
    const list = slots({ hours: "sat 10:00-11:00", from: "2026-06-15", days: 7 });
    expect(startsIn("Europe/Berlin", list)).toEqual(["2026-06-20T10:00:00+02:00"]);
  });

  test("a window closing at 24:00 offers its last slot up to midnight", () => {
    const list = slots({ hours: "mon 22:00-24:00" });
    expect(formatInZone(list.at(-1)?.end as Date, "Europe/Berlin")).toBe("2026-06-16T00:00:00+02:00");
    expect(list).toHaveLength(2);
  });
});

describe("capacity and bookings", () => {
  const at = (iso: string, minutes: number, partySize: number): HeldPlaces => ({
    start: new Date(iso),
    end: new Date(new Date(iso).getTime() + minutes * 60_000),
    partySize,
  });

  test("a slot shows the places its bookings leave, and a party it cannot hold does not see it", () => {
    const base = { hours: "mon 09:00-12:00", service: { durationMinutes: 60, capacity: 3 } };
    const bookings = [at("2026-06-15T08:00:00Z", 60, 2), at("2026-06-15T09:00:00Z", 60, 3)];
    const forOne = slots({ ...base, bookings });
    expect(forOne.map((s) => [formatInZone(s.start, "Europe/Berlin"), s.capacityLeft])).toEqual([
      ["2026-06-15T09:00:00+02:00", 3],
      ["2026-06-15T10:00:00+02:00", 1],
    ]);
    const forTwo = slots({ ...base, bookings, partySize: 2 });
    expect(forTwo.map((s) => s.capacityLeft)).toEqual([3]);
  });

  test("a booking off the grid holds its places in every slot it overlaps", () => {
    const list = slots({
      hours: "mon 09:00-12:00",
      service: { durationMinutes: 60, capacity: 2 },
      bookings: [at("2026-06-15T07:30:00Z", 60, 1)],
    });
    expect(list.map((s) => s.capacityLeft)).toEqual([1, 1, 2]);
  });

  test("a booking that ends as a slot starts does not touch it", () => {
    const list = slots({ hours: "mon 09:00-11:00", bookings: [at("2026-06-15T06:00:00Z", 60, 1)] });
    expect(list).toHaveLength(2);
  });
});

describe("now", () => {
  test("slots that started before now are dropped, and one starting exactly now is kept", () => {
    const list = slots({ hours: "mon 09:00-12:00", now: new Date("2026-06-15T08:00:00Z") });
    expect(startsIn("Europe/Berlin", list)).toEqual([
      "2026-06-15T10:00:00+02:00",
      "2026-06-15T11:00:00+02:00",
    ]);
    const later = slots({ hours: "mon 09:00-12:00", now: new Date("2026-06-15T08:00:01Z") });
    expect(startsIn("Europe/Berlin", later)).toEqual(["2026-06-15T11:00:00+02:00"]);
  });
});
