/**
 * The opaque cursors of the history's pages (`nextCursor`): base64url of a small JSON array that
 * names the list it belongs to and where its page ended. A cursor of another list, or anything
 * this service did not issue (a position no row can have among them), decodes to undefined (a 400
 * for the route).
 */

/** Where a page of runs ended: the last run's creation time (epoch microseconds) and id. */
export type RunCursor = { createdMicros: bigint; id: string };

/** Where a page of the ledger ended: the last row's id. */
export type LedgerCursor = { id: bigint };

const CURSOR_TEXT = /^[A-Za-z0-9_-]{1,512}$/;
const DIGITS = /^\d{1,19}$/;
const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;
const INT8_MAX = 9_223_372_036_854_775_807n;
/**
 * The last microsecond of year 9999 (epoch microseconds): past every time a run can be created,
 * and within what the database's timestamps hold (a larger position overflows its arithmetic).
 */
const LATEST_RUN_MICROS = 253_402_300_799_999_999n;

const encode = (value: unknown[]) => Buffer.from(JSON.stringify(value), "utf8").toString("base64url");

function decode(cursor: string, list: string): unknown[] | undefined {
  if (!CURSOR_TEXT.test(cursor)) return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    return Array.isArray(value) && value[0] === list ? value.slice(1) : undefined;
  } catch {
    return undefined;
  }
}

const int8 = (value: unknown): bigint | undefined =>
  typeof value === "string" && DIGITS.test(value) && BigInt(value) <= INT8_MAX ? BigInt(value) : undefined;

export function encodeRunCursor(position: RunCursor): string {
  return encode(["runs", position.createdMicros.toString(), position.id]);
}

export function decodeRunCursor(cursor: string): RunCursor | undefined {
  const fields = decode(cursor, "runs");
  if (fields?.length !== 2) return undefined;
  const [micros, id] = fields;
  const createdMicros = int8(micros);
  if (createdMicros === undefined || createdMicros > LATEST_RUN_MICROS) return undefined;
  if (typeof id !== "string" || !RUN_ID.test(id)) return undefined;
  return { createdMicros, id };
}

export function encodeLedgerCursor(position: LedgerCursor): string {
  return encode(["ledger", position.id.toString()]);
}

export function decodeLedgerCursor(cursor: string): LedgerCursor | undefined {
  const fields = decode(cursor, "ledger");
  if (fields?.length !== 1) return undefined;
  const id = int8(fields[0]);
  return id === undefined ? undefined : { id };
}
