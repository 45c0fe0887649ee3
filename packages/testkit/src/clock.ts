import type { Clock } from "@app/core";

/** A clock that shows what the test sets: moved to an instant, or forward by some milliseconds. */
export type FakeClock = Clock & { set(iso: string): void; advance(ms: number): void };

/** A {@link FakeClock} showing `iso` until the test moves it. */
export function fakeClock(iso = "2026-06-15T08:00:00Z"): FakeClock {
  let current = new Date(iso).getTime();
  return {
    now: () => new Date(current),
    set(next) {
      current = new Date(next).getTime();
    },
    advance(ms) {
      current += ms;
    },
  };
}
