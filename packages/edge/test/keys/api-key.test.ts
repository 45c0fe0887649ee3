import { createHash } from "node:crypto";
import { describe, expect, test } from "vitest";
import {
  apiKeyHash,
  isPlausibleApiKey,
  issueApiKey,
  MAX_API_KEY_LENGTH,
  sameKeyHash,
  verifyApiKey,
} from "../../src/keys/api-key.ts";
import { LAST_USED_RESOLUTION_MS, lastUsedIsStale } from "../../src/keys/last-used.ts";
import { missingScope } from "../../src/keys/scopes.ts";

describe("issuing a key", () => {
  test("a key is its prefix and a 256-bit random secret, each one different", () => {
    const first = issueApiKey("gwk");
    const second = issueApiKey("gwk");
    expect(first.key).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(first.key.slice(4), "base64url")).toHaveLength(32);
    expect(first.key).not.toBe(second.key);
  });

  test("what is kept is the key's SHA-256 and a shown prefix too short to call with", () => {
    const issued = issueApiKey("shk");
    expect(issued.hash).toBe(createHash("sha256").update(issued.key).digest("hex"));
    expect(issued.hash).toBe(apiKeyHash(issued.key));
    expect(issued.shownPrefix).toBe(issued.key.slice(0, 8));
    expect(issued.shownPrefix).toMatch(/^shk_.{4}$/);
  });
});

describe("verifying a key", () => {
  test("the key of a stored hash matches it; any other key does not", () => {
    const { key, hash } = issueApiKey("pk");
    expect(verifyApiKey(key, hash)).toBe(true);
    expect(verifyApiKey(`${key}x`, hash)).toBe(false);
    expect(verifyApiKey(key.slice(0, -1), hash)).toBe(false);
    expect(verifyApiKey(issueApiKey("pk").key, hash)).toBe(false);
  });

  test("hashes of another length or none at all never match", () => {
    const { hash } = issueApiKey("pk");
    expect(sameKeyHash(hash, hash)).toBe(true);
    expect(sameKeyHash(hash, hash.slice(0, 32))).toBe(false);
    expect(sameKeyHash("", "")).toBe(false);
    expect(sameKeyHash(hash, "not hex at all")).toBe(false);
  });

  test("an empty key or one longer than any issued is refused before it is hashed", () => {
    expect(isPlausibleApiKey("")).toBe(false);
    expect(isPlausibleApiKey("k".repeat(MAX_API_KEY_LENGTH))).toBe(true);
    const overlong = "k".repeat(MAX_API_KEY_LENGTH + 1);
    expect(isPlausibleApiKey(overlong)).toBe(false);
    expect(verifyApiKey(overlong, apiKeyHash(overlong))).toBe(false);
  });
});

describe("scopes", () => {
  test("the check names the first required scope the key lacks", () => {
    expect(missingScope(["posts:read", "posts:write"], ["posts:write"])).toBeUndefined();
    expect(missingScope(["posts:read"], ["posts:read", "media:write", "posts:write"])).toBe("media:write");
    expect(missingScope([], ["posts:read"])).toBe("posts:read");
    expect(missingScope([], [])).toBeUndefined();
  });
});

describe("last use", () => {
  test("a key is marked used when it never was, or when its mark is a minute old", () => {
    const now = new Date("2026-06-15T06:01:00Z");
    expect(lastUsedIsStale(null, now)).toBe(true);
    expect(lastUsedIsStale(new Date(now.getTime() - LAST_USED_RESOLUTION_MS + 1), now)).toBe(false);
    expect(lastUsedIsStale(new Date(now.getTime() - LAST_USED_RESOLUTION_MS), now)).toBe(true);
  });
});
