import { createHash, timingSafeEqual } from "node:crypto";
import { newSecret } from "@app/core";

/**
 * Longer than any key issued (`<prefix>_` + 43 base64url characters): a longer one is refused
 * without hashing or a lookup.
 */
export const MAX_API_KEY_LENGTH = 200;

/** How many random characters of a key its shown prefix keeps after `<prefix>_`. */
const SHOWN_RANDOM_CHARACTERS = 4;

/** A key at the only moment it exists in clear: shown to its owner once, never stored. */
export type NewApiKey = {
  /** `<prefix>_` + a 256-bit random secret, base64url. */
  key: string;
  /** What is stored instead of the key: its SHA-256, hex. */
  hash: string;
  /** `<prefix>_` and a few random characters: enough to recognise the key in a list, useless to call with. */
  shownPrefix: string;
};

/** SHA-256 of a key, hex: what a keys table keeps instead of the key. */
export function apiKeyHash(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** A new key with a recognisable `prefix` (`pk`, `shk`, `gwk`…), its hash and its shown prefix. */
export function issueApiKey(prefix: string): NewApiKey {
  const key = newSecret(prefix);
  return {
    key,
    hash: apiKeyHash(key),
    shownPrefix: key.slice(0, prefix.length + 1 + SHOWN_RANDOM_CHARACTERS),
  };
}

/** Whether a presented key is worth hashing and looking up: not empty, within {@link MAX_API_KEY_LENGTH}. */
export function isPlausibleApiKey(key: string): boolean {
  return key.length > 0 && key.length <= MAX_API_KEY_LENGTH;
}

/**
 * Whether two key hashes (hex) are the same, compared in constant time: a lookup by the hash's
 * index finds the row, this confirms it without a timing signal.
 */
export function sameKeyHash(hash: string, storedHash: string): boolean {
  const presented = Buffer.from(hash, "hex");
  const stored = Buffer.from(storedHash, "hex");
  return presented.length === stored.length && presented.length > 0 && timingSafeEqual(presented, stored);
}

/** Whether `key` is the key whose hash is `storedHash` (constant time, length-bounded). */
export function verifyApiKey(key: string, storedHash: string): boolean {
  return isPlausibleApiKey(key) && sameKeyHash(apiKeyHash(key), storedHash);
}
