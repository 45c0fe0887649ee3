/**
 * A place in the events feed: an event's `position` (a positive bigint, as its decimal text), given
 * once its transaction committed; the feed is ordered by it (see
 * migrations/027_feed_positions_and_refresh_leases.sql). "0" is the start, before every event.
 */
export type EventPosition = string;

const MAX_POSITION = 2n ** 63n - 1n;

/** Whether `value` is a position in its one spelling: decimal, no sign, no leading zero, a bigint. */
function isPosition(value: unknown): value is EventPosition {
  return typeof value === "string" && /^(0|[1-9]\d{0,18})$/.test(value) && BigInt(value) <= MAX_POSITION;
}

/** The opaque cursor of the feed after `position` (what `nextCursor` and each event's `cursor` are). */
export function encodeEventCursor(position: EventPosition): string {
  return Buffer.from(JSON.stringify(["p", position]), "utf8").toString("base64url");
}

/** The position an events cursor names, or undefined when it is not one this service issued. */
export function decodeEventCursor(cursor: string): EventPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 2 || value[0] !== "p") return undefined;
    return isPosition(value[1]) ? value[1] : undefined;
  } catch {
    return undefined;
  }
}
