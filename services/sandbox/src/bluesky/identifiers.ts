import { randomBytes } from "node:crypto";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";
const TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz";

function base32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A blob's CID (base32, `b…`) from the SHA-256 of its bytes: CIDv1, codec `raw` (0x55), as a PDS names blobs. */
export function blobCid(sha256Hex: string): string {
  const digest = Buffer.from(sha256Hex, "hex");
  return `b${base32(new Uint8Array([1, 0x55, 0x12, 0x20, ...digest]))}`;
}

let lastTidMicros = 0n;

/**
 * A timestamp identifier (TID): microseconds since 1970 and a clock id, in sortable base32, 13
 * characters; each is later than the one before (as a repository's revisions must be).
 */
export function newTid(now: Date): string {
  let micros = BigInt(now.getTime()) * 1000n + BigInt(randomBytes(1)[0] ?? 0);
  if (micros <= lastTidMicros) micros = lastTidMicros + 1n;
  lastTidMicros = micros;
  let value = (micros << 10n) | BigInt(randomBytes(2).readUInt16BE() & 1023);
  let out = "";
  for (let index = 0; index < 13; index += 1) {
    out = TID_ALPHABET[Number(value & 31n)] + out;
    value >>= 5n;
  }
  return out;
}

/** True for a syntactically valid TID (the record key type of `app.bsky.feed.post`). */
export function isTid(value: string): boolean {
  return /^[234567abcdefghij][234567abcdefghijklmnopqrstuvwxyz]{12}$/.test(value);
}

/** True for a valid NSID such as `app.bsky.feed.post`. */
export function isNsid(value: string): boolean {
  return (
    /^[a-zA-Z]([a-zA-Z0-9-]{0,62})?(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})?)+(\.[a-zA-Z]([a-zA-Z0-9]{0,62})?)$/.test(
      value,
    ) && value.length <= 317
  );
}

/** True for a valid record key: 1–512 of `A-Za-z0-9._:~-`, not `.` or `..`. */
export function isRecordKey(value: string): boolean {
  return /^[A-Za-z0-9._:~-]{1,512}$/.test(value) && value !== "." && value !== "..";
}

/** Whether a record key fits a lexicon's record key type (`tid`, `nsid`, `any`, `literal:<value>`). */
export function recordKeyProblem(keyType: string | undefined, rkey: string): string | undefined {
  if (keyType === "tid" && !isTid(rkey)) return `the record key must be a TID (got "${rkey.slice(0, 60)}")`;
  if (keyType === "nsid" && !isNsid(rkey))
    return `the record key must be an NSID (got "${rkey.slice(0, 60)}")`;
  if (keyType?.startsWith("literal:") && rkey !== keyType.slice("literal:".length)) {
    return `the record key must be "${keyType.slice("literal:".length)}" (got "${rkey.slice(0, 60)}")`;
  }
  return undefined;
}
