import { describe, expect, it } from "vitest";
import { isTid, newTid } from "../../src/platforms/bluesky/tid.ts";
import { PlatformError, parseRetryAfter } from "../../src/platforms/errors.ts";
import { chunkAt, chunkRange, planChunks } from "../../src/platforms/tiktok/chunk-plan.ts";
import type { CreatorInfo } from "../../src/platforms/tiktok/tiktok-client.ts";
import { receivedBytes } from "../../src/platforms/youtube/youtube-client.ts";
import { truncate, youtubeTexts } from "../../src/publishing/post-texts.ts";
import { backoffMs, defaultRetryPolicy, settlementForFailure } from "../../src/publishing/retry-policy.ts";
import { photoPostInfo } from "../../src/publishing/tiktok-post-info.ts";
import { content } from "../publishing-support.ts";

const MB = 1024 * 1024;
const CREATOR = {
  privacyLevelOptions: ["PUBLIC_TO_EVERYONE", "SELF_ONLY"],
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
} as CreatorInfo;

describe("TikTok's chunk arithmetic", () => {
  it("sends a file under 5 MB whole, as one chunk", () => {
    expect(planChunks(4 * MB)).toEqual({ videoSize: 4 * MB, chunkSize: 4 * MB, totalChunkCount: 1 });
  });
  it("sends a file between 5 MB and the chunk size as one chunk of its size", () => {
    expect(planChunks(7 * MB)).toEqual({ videoSize: 7 * MB, chunkSize: 7 * MB, totalChunkCount: 1 });
  });
  it("rounds the chunk count down and gives the trailing bytes to the last chunk", () => {
    const plan = planChunks(25 * MB + 3);
    expect(plan).toEqual({ videoSize: 25 * MB + 3, chunkSize: 10 * MB, totalChunkCount: 2 });
    expect(chunkRange(plan, 0)).toEqual({ first: 0, last: 10 * MB - 1 });
    expect(chunkRange(plan, 1)).toEqual({ first: 10 * MB, last: 25 * MB + 2 });
  });
  it("clamps the preferred chunk to 5–64 MB and finds the chunk at an offset", () => {
    expect(planChunks(200 * MB, 100 * MB).chunkSize).toBe(64 * MB);
    expect(planChunks(200 * MB, MB).chunkSize).toBe(5 * MB);
    const plan = planChunks(30 * MB, 10 * MB);
    expect(chunkAt(plan, 10 * MB)).toBe(1);
    expect(chunkAt(plan, 10 * MB + 1)).toBeNull();
  });
});

describe("retries", () => {
  const policy = { ...defaultRetryPolicy(), baseDelayMs: 1000, maxDelayMs: 60_000, maxAttempts: 3 };
  const now = new Date("2026-01-01T00:00:00Z");
  it("backs off exponentially within half and all of the ceiling", () => {
    expect(backoffMs(policy, 0, () => 0)).toBe(500);
    expect(backoffMs(policy, 3, () => 1)).toBe(8000);
    expect(backoffMs(policy, 20, () => 1)).toBe(60_000);
  });
  it("waits at least as long as Retry-After says", () => {
    const error = new PlatformError("tiktok", "transient", "rate_limit_exceeded", "slow down", {
      retryAfterMs: 30_000,
    });
    const settlement = settlementForFailure(error, 0, now, policy, () => 0);
    expect(settlement).toMatchObject({
      kind: "later",
      runAt: new Date(now.getTime() + 30_000),
      countAsAttempt: true,
    });
  });
  it("fails a permanent refusal at once and a transient one after the last attempt", () => {
    const permanent = new PlatformError("youtube", "permanent", "invalidTitle", "bad title");
    expect(settlementForFailure(permanent, 0, now, policy)).toEqual({
      kind: "failed",
      error: "invalidTitle: bad title",
    });
    const transient = new PlatformError("youtube", "transient", "backendError", "try later");
    expect(settlementForFailure(transient, 2, now, policy)).toMatchObject({
      kind: "failed",
      error: expect.stringContaining("gave up after 3 attempts"),
    });
  });
  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(parseRetryAfter("soon", now)).toBeNull();
  });
});

describe("platform details", () => {
  it("makes record keys that are valid, distinct TIDs", () => {
    const keys = new Set(Array.from({ length: 50 }, () => newTid(new Date())));
    expect(keys.size).toBe(50);
    expect([...keys].every(isTid)).toBe(true);
  });
  it("reads the bytes a YouTube session holds from its Range header", () => {
    expect(receivedBytes("bytes=0-262143")).toBe(262_144);
    expect(receivedBytes(null)).toBe(0);
  });
  it("titles a YouTube video from the caption's first line, without angle brackets, at most 100 characters", () => {
    const texts = youtubeTexts(content({ caption: `<b>${"x".repeat(120)}</b>\nbody` }));
    expect(texts.title).toBe(`b${"x".repeat(99)}`);
    expect(texts.description).not.toMatch(/[<>]/);
  });
  it("cuts a title on a character boundary: an emoji with its joiners stays whole or goes", () => {
    const family = "👨‍👩‍👧‍👦"; // 11 UTF-16 units
    expect(truncate(`${"a".repeat(85)}${family}`, 90)).toBe("a".repeat(85));
    expect(truncate(`${"a".repeat(79)}${family}b`, 90)).toBe(`${"a".repeat(79)}${family}`);
    const title = photoPostInfo(content({ caption: `${"x".repeat(89)}😀 and more` }), CREATOR).title;
    expect(title).toBe("x".repeat(89));
    expect(String(title).isWellFormed()).toBe(true);
  });
  it("sends a YouTube title the request accepted (100 characters, emoji included) whole", () => {
    const title = "🎬".repeat(100);
    expect(youtubeTexts(content({ youtube: { privacy: "private", title } })).title).toBe(title);
  });
});
