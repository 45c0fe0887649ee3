import { randomInt } from "node:crypto";
import { TID } from "@atproto/common-web";
import { isValidNsid, isValidRecordKey, isValidTid } from "@atproto/syntax";

const BASE32 = "abcdefghijklmnopqrstuvwxyz234567";

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

let lastTidMicros = 0;

/**
 * A timestamp identifier (TID, atproto's own `TID`): microseconds since 1970 and a clock id, in
 * sortable base32, 13 characters; each is later than the one before (as a repository's revisions
 * must be).
 */
export function newTid(now: Date): string {
  const micros = Math.max(now.getTime() * 1000 + randomInt(256), lastTidMicros + 1);
  lastTidMicros = micros;
  return TID.fromTime(micros, randomInt(1024)).toString();
}

/** True for a syntactically valid TID (the record key type of `app.bsky.feed.post`). */
export const isTid = (value: string): boolean => isValidTid(value);

/** True for a valid NSID such as `app.bsky.feed.post`. */
export const isNsid = (value: string): boolean => isValidNsid(value);

/** True for a valid record key: 1–512 of `A-Za-z0-9._:~-`, not `.` or `..`. */
export const isRecordKey = (value: string): boolean => isValidRecordKey(value);

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
