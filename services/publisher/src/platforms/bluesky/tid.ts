import { randomBytes } from "node:crypto";

const TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

/**
 * A timestamp identifier (TID), the record key type of `app.bsky.feed.post`: 53 bits of
 * microseconds since 1970 and a 10-bit random clock id, in sortable base32 (13 characters).
 * Chosen before `createRecord`, it is the post's exactly-once handle.
 */
export function newTid(now: Date): string {
  const micros = BigInt(now.getTime()) * 1000n + BigInt(randomBytes(2).readUInt16BE() % 1000);
  let value = ((micros & ((1n << 53n) - 1n)) << 10n) | BigInt(randomBytes(2).readUInt16BE() & 1023);
  let out = "";
  for (let index = 0; index < 13; index += 1) {
    out = TID_ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** True for a syntactically valid TID. */
export function isTid(value: string): boolean {
  return /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(value);
}
