/** Where the time comes from: the system in production, a fake in tests. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** ISO 8601 UTC with milliseconds, independent of the process time zone. */
export function toIso(date: Date): string {
  return date.toISOString();
}
