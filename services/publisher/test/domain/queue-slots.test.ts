import { describe, expect, test } from "vitest";
import {
  candidateSlots,
  DEFAULT_QUEUE_SETTINGS,
  nextFreeSlot,
  type QueueSettings,
} from "../../src/domain/queue-slots.ts";

const NY: QueueSettings = {
  postsPerDay: 1,
  allowedDays: [0, 1, 2, 3, 4, 5, 6],
  timeZone: "America/New_York",
};
const at = (iso: string) => new Date(iso).getTime();

describe("next free queue slot", () => {
  test("the first slot is today's 09:00 in the zone when it is still ahead", () => {
    const slot = nextFreeSlot({
      now: new Date("2026-06-15T06:00:00Z"),
      settings: DEFAULT_QUEUE_SETTINGS,
      taken: new Set(),
    });
    expect(slot?.toISOString()).toBe("2026-06-15T09:00:00.000Z");
  });

  test("a slot at the very instant of now is not offered; the next day's is", () => {
    const slot = nextFreeSlot({
      now: new Date("2026-06-15T09:00:00Z"),
      settings: DEFAULT_QUEUE_SETTINGS,
      taken: new Set(),
    });
    expect(slot?.toISOString()).toBe("2026-06-16T09:00:00.000Z");
  });

  test("taken slots are skipped, in time order across the day's slot times", () => {
    const settings: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, postsPerDay: 3 };
    const taken = new Set([at("2026-06-15T09:00:00Z"), at("2026-06-15T13:00:00Z")]);
    const slot = nextFreeSlot({ now: new Date("2026-06-15T06:00:00Z"), settings, taken });
    expect(slot?.toISOString()).toBe("2026-06-15T18:00:00.000Z");
  });

  test("two posts a day use 09:00 and 17:00 local", () => {
    const settings: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, postsPerDay: 2, timeZone: "Europe/Berlin" };
    const slot = nextFreeSlot({ now: new Date("2026-06-15T08:00:00Z"), settings, taken: new Set() });
    // 10:00 in Berlin: 09:00 is past, 17:00 CEST is 15:00Z.
    expect(slot?.toISOString()).toBe("2026-06-15T15:00:00.000Z");
  });

  test("days not allowed are skipped, 0 being Sunday", () => {
    // Friday 19 June 2026, after 09:00 UTC; only Sundays allowed.
    const settings: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, allowedDays: [0] };
    const slot = nextFreeSlot({ now: new Date("2026-06-19T10:00:00Z"), settings, taken: new Set() });
    expect(slot?.toISOString()).toBe("2026-06-21T09:00:00.000Z");
    expect(slot?.getUTCDay()).toBe(0);
  });

  test("09:00 in New York keeps its wall-clock hour across the spring DST change", () => {
    // Fri 6 March 2026 is EST (UTC-5); Sun 8 March the clocks go forward; Mon 9 March is EDT (UTC-4).
    const taken = new Set([
      at("2026-03-06T14:00:00Z"),
      at("2026-03-07T14:00:00Z"),
      at("2026-03-08T13:00:00Z"),
    ]);
    const slot = nextFreeSlot({ now: new Date("2026-03-06T05:00:00Z"), settings: NY, taken });
    expect(slot?.toISOString()).toBe("2026-03-09T13:00:00.000Z");
  });

  test("the day of the spring change itself gets its 09:00 EDT slot", () => {
    const slot = nextFreeSlot({ now: new Date("2026-03-08T06:00:00Z"), settings: NY, taken: new Set() });
    expect(slot?.toISOString()).toBe("2026-03-08T13:00:00.000Z");
  });

  test("09:00 in New York keeps its hour across the autumn DST change", () => {
    // Sun 1 November 2026 the clocks go back: 09:00 is 13:00Z on Saturday and 14:00Z on Sunday.
    const taken = new Set([at("2026-10-31T13:00:00Z")]);
    const slot = nextFreeSlot({ now: new Date("2026-10-31T05:00:00Z"), settings: NY, taken });
    expect(slot?.toISOString()).toBe("2026-11-01T14:00:00.000Z");
  });

  test("a zone whose offset puts local today on the previous UTC day starts from local today", () => {
    // 03:00Z on 16 June is 20:00 on 15 June in Los Angeles: tomorrow 09:00 PDT is 16:00Z on 16 June.
    const settings: QueueSettings = { ...DEFAULT_QUEUE_SETTINGS, timeZone: "America/Los_Angeles" };
    const slot = nextFreeSlot({ now: new Date("2026-06-16T03:00:00Z"), settings, taken: new Set() });
    expect(slot?.toISOString()).toBe("2026-06-16T16:00:00.000Z");
  });

  test("no slot when every slot from today to the horizon's last day is taken", () => {
    const now = new Date("2026-06-15T10:00:00Z");
    const taken = new Set(
      Array.from({ length: 10 }, (_, day) => at("2026-06-16T09:00:00Z") + day * 86_400_000),
    );
    expect(nextFreeSlot({ now, settings: DEFAULT_QUEUE_SETTINGS, taken, horizonDays: 10 })).toBeUndefined();
    expect(
      nextFreeSlot({ now, settings: DEFAULT_QUEUE_SETTINGS, taken, horizonDays: 11 })?.toISOString(),
    ).toBe("2026-06-26T09:00:00.000Z");
  });
});

describe("candidate slots (a schedule's horizon is worked out once per local day)", () => {
  const iso = (slots: Date[]) => slots.map((slot) => slot.toISOString());

  test("schedules that share a zone and a day each get their own slots", () => {
    const now = new Date("2026-06-15T06:00:00Z");
    const once = candidateSlots({ now, settings: NY, horizonDays: 2 });
    const thrice = candidateSlots({ now, settings: { ...NY, postsPerDay: 3 }, horizonDays: 2 });
    const weekends = candidateSlots({ now, settings: { ...NY, allowedDays: [0, 6] }, horizonDays: 7 });
    expect(iso(once)).toEqual([
      "2026-06-15T13:00:00.000Z",
      "2026-06-16T13:00:00.000Z",
      "2026-06-17T13:00:00.000Z",
    ]);
    expect(thrice).toHaveLength(9);
    expect(iso(weekends)).toEqual(["2026-06-20T13:00:00.000Z", "2026-06-21T13:00:00.000Z"]);
  });

  test("a later moment of the same day drops the slots it has passed", () => {
    const settings = { ...NY, postsPerDay: 2 as const };
    const morning = candidateSlots({ now: new Date("2026-06-15T12:00:00Z"), settings, horizonDays: 1 });
    const afternoon = candidateSlots({ now: new Date("2026-06-15T13:00:00Z"), settings, horizonDays: 1 });
    expect(morning).toHaveLength(4);
    expect(iso(afternoon)).toEqual(iso(morning).slice(1));
  });

  test("a new local day reaches one day further, and its first slots follow a DST change", () => {
    const before = candidateSlots({ now: new Date("2026-03-07T04:00:00Z"), settings: NY, horizonDays: 1 });
    const after = candidateSlots({ now: new Date("2026-03-07T05:30:00Z"), settings: NY, horizonDays: 1 });
    // 04:00Z on 7 March is 23:00 on 6 March in New York; 05:30Z is 00:30 on 7 March.
    expect(iso(before)).toEqual(["2026-03-07T14:00:00.000Z"]);
    expect(iso(after)).toEqual(["2026-03-07T14:00:00.000Z", "2026-03-08T13:00:00.000Z"]);
  });
});
