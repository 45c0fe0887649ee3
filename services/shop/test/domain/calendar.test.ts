import { describe, expect, test } from "vitest";
import {
  addDays,
  dateIn,
  isLocalDate,
  isTimeZone,
  wallTimeToInstant,
  weekdayOf,
} from "../../src/domain/calendar.ts";

describe("today in the shop's zone", () => {
  test("east of UTC it is already tomorrow while UTC is still on today's date", () => {
    const now = new Date("2026-06-10T20:00:00Z");
    expect(dateIn("Asia/Kolkata", now)).toBe("2026-06-11");
    expect(dateIn("UTC", now)).toBe("2026-06-10");
  });

  test("west of UTC it is still yesterday while UTC has moved on", () => {
    const now = new Date("2026-06-11T03:00:00Z");
    expect(dateIn("America/Los_Angeles", now)).toBe("2026-06-10");
    expect(dateIn("UTC", now)).toBe("2026-06-11");
  });
});

describe("dates and zones", () => {
  test("only real calendar dates written YYYY-MM-DD are dates", () => {
    expect(isLocalDate("2028-02-29")).toBe(true);
    expect(isLocalDate("2026-02-29")).toBe(false);
    expect(isLocalDate("2026-1-01")).toBe(false);
    expect(isLocalDate("2026-01-01T00:00")).toBe(false);
  });

  test("IANA names are time zones; fixed offsets and unknown names are not", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("Asia/Kolkata")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("+05:30")).toBe(false);
    expect(isTimeZone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });

  test("adding days crosses months and leap days; weekdays run Monday 1 to Sunday 7", () => {
    expect(addDays("2028-02-28", 1)).toBe("2028-02-29");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(weekdayOf("2026-06-15")).toBe(1);
    expect(weekdayOf("2026-06-21")).toBe(7);
  });

  test("a wall time becomes the instant the shop's clocks show it, 24:00 being the next midnight", () => {
    expect(wallTimeToInstant("2026-06-15", 9 * 60, "Asia/Kolkata").toISOString()).toBe(
      "2026-06-15T03:30:00.000Z",
    );
    expect(wallTimeToInstant("2026-01-15", 1440, "Europe/Berlin").toISOString()).toBe(
      "2026-01-15T23:00:00.000Z",
    );
  });
});
