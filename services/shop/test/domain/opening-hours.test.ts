import { describe, expect, test } from "vitest";
import { formatWeeklyHours, OpeningHoursError, parseWeeklyHours } from "../../src/domain/opening-hours.ts";

describe("weekly hours as the owner writes them", () => {
  test("ranges, lists and several windows a day become windows in minutes", () => {
    expect(parseWeeklyHours("mon-tue 09:00-12:30 13:30-18:00; sat,sun 10:00-24:00")).toEqual([
      { weekday: 1, opensAt: 540, closesAt: 750 },
      { weekday: 1, opensAt: 810, closesAt: 1080 },
      { weekday: 2, opensAt: 540, closesAt: 750 },
      { weekday: 2, opensAt: 810, closesAt: 1080 },
      { weekday: 6, opensAt: 600, closesAt: 1440 },
      { weekday: 7, opensAt: 600, closesAt: 1440 },
    ]);
  });

  test("written back, they read the same", () => {
    const text = "mon 09:00-12:30 13:30-18:00; wed 08:15-09:45; sun 00:00-24:00";
    expect(formatWeeklyHours(parseWeeklyHours(text))).toBe(text);
  });

  test.each([
    ["overlapping windows on one day", "mon 09:00-12:00; mon-fri 11:00-13:00"],
    ["a window that closes before it opens", "mon 18:00-09:00"],
    ["a time past midnight", "mon 09:00-24:30"],
    ["an unknown weekday", "mox 09:00-10:00"],
    ["a range running backwards", "fri-mon 09:00-10:00"],
    ["days without a window", "mon"],
    ["a window without minutes", "mon 9-17"],
  ])("%s is refused with a reason", (_what, text) => {
    expect(() => parseWeeklyHours(text)).toThrow(OpeningHoursError);
  });
});
