/**
 * A place in the events feed: the writing transaction's id (`xid`, an xid8 as its decimal text)
 * and the event's `seq`. The feed is ordered by both (see migrations/023_events.sql).
 */
export type EventPosition = { xid: string; seq: number };

const MAX_XID8 = 2n ** 64n - 1n;

/** Whether `position` could be a place in the feed (a valid xid8 and a non-negative seq). */
function isPosition(xid: unknown, seq: unknown): xid is string {
  return (
    typeof xid === "string" &&
    /^\d{1,20}$/.test(xid) &&
    BigInt(xid) <= MAX_XID8 &&
    Number.isSafeInteger(seq) &&
    (seq as number) >= 0
  );
}

/** The opaque cursor of the feed after `position` (what `nextCursor` and each event's `cursor` are). */
export function encodeEventCursor(position: EventPosition): string {
  return Buffer.from(JSON.stringify(["e", position.xid, position.seq]), "utf8").toString("base64url");
}

/** The position an events cursor names, or undefined when it is not one this service issued. */
export function decodeEventCursor(cursor: string): EventPosition | undefined {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(value) || value.length !== 3 || value[0] !== "e") return undefined;
    const [, xid, seq] = value;
    if (!isPosition(xid, seq)) return undefined;
    // One spelling per position: "007" and "7" are the same xid, so only the canonical one is taken.
    if (String(BigInt(xid)) !== xid) return undefined;
    return { xid, seq: seq as number };
  } catch {
    return undefined;
  }
}
