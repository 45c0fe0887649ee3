import { createHash, randomBytes } from "node:crypto";

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

/** A CIDv1 (base32, `b…`) for a SHA-256 digest: codec `raw` (0x55) for blobs, `dag-cbor` (0x71) for records. */
export function cidOf(sha256Hex: string, codec: "raw" | "dag-cbor"): string {
  const digest = Buffer.from(sha256Hex, "hex");
  const bytes = new Uint8Array([1, codec === "raw" ? 0x55 : 0x71, 0x12, 0x20, ...digest]);
  return `b${base32(bytes)}`;
}

/** A record's CID: SHA-256 of its canonical JSON (keys sorted) under the dag-cbor codec (not its real CBOR encoding). */
export function recordCid(record: unknown): string {
  const canonical = JSON.stringify(record, (_key, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(
          Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : value,
  );
  return cidOf(createHash("sha256").update(canonical).digest("hex"), "dag-cbor");
}

/** A timestamp identifier (TID): microseconds since 1970 and a clock id, in sortable base32, 13 characters. */
export function newTid(now: Date): string {
  let value = (BigInt(now.getTime()) * 1000n + BigInt(randomBytes(1)[0] ?? 0)) << 10n;
  value |= BigInt(randomBytes(2).readUInt16BE() & 1023);
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
