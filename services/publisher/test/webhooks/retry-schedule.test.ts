import { describe, expect, it } from "vitest";
import { responseExcerpt } from "../../src/webhooks/excerpt.ts";
import {
  DEFAULT_WEBHOOK_RETRY,
  isLastAttempt,
  nominalDelayMs,
  parseRetryAfter,
  retryDelayMs,
  shouldDisableEndpoint,
} from "../../src/webhooks/retry-schedule.ts";

const policy = DEFAULT_WEBHOOK_RETRY;
const SECOND = 1_000;
const HOUR = 3_600 * SECOND;
const DAY = 24 * HOUR;

describe("the webhook retry schedule", () => {
  it("grows fourfold from 10 s to at most 8 hours, ten attempts over about 28 hours", () => {
    const delays = Array.from({ length: policy.maxAttempts - 1 }, (_, index) =>
      nominalDelayMs(policy, index + 1),
    );
    expect(delays).toEqual([
      10 * SECOND,
      40 * SECOND,
      160 * SECOND,
      640 * SECOND,
      2_560 * SECOND,
      10_240 * SECOND,
      8 * HOUR,
      8 * HOUR,
      8 * HOUR,
    ]);
    const total = delays.reduce((sum, delay) => sum + delay, 0);
    expect(total / HOUR).toBeCloseTo(27.79, 2);
    expect(total).toBeGreaterThan(DAY);
    expect(isLastAttempt(policy, 9)).toBe(false);
    expect(isLastAttempt(policy, 10)).toBe(true);
  });

  it("draws each delay within ±20 % of its nominal value", () => {
    expect(retryDelayMs(policy, 2, undefined, () => 0)).toBe(32 * SECOND);
    expect(retryDelayMs(policy, 2, undefined, () => 0.5)).toBe(40 * SECOND);
    expect(retryDelayMs(policy, 2, undefined, () => 0.999_999)).toBe(48 * SECOND);
    expect(retryDelayMs(policy, 9, undefined, () => 0.75)).toBe(31_680_000);
  });

  it("takes the receiver's Retry-After instead, between 1 s and 8 hours", () => {
    expect(retryDelayMs(policy, 1, 120 * SECOND)).toBe(120 * SECOND);
    expect(retryDelayMs(policy, 5, 0)).toBe(SECOND);
    expect(retryDelayMs(policy, 1, 30 * DAY)).toBe(8 * HOUR);
  });

  it("reads Retry-After as delay-seconds or an HTTP date, and nothing else", () => {
    const now = new Date("2026-06-15T06:00:00Z");
    expect(parseRetryAfter("120", now)).toBe(120 * SECOND);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("Mon, 15 Jun 2026 07:00:00 GMT", now)).toBe(HOUR);
    expect(parseRetryAfter("Mon, 15 Jun 2026 05:00:00 GMT", now)).toBe(0);
    for (const junk of [undefined, "", "-5", "1.5", "soon", "2026-06-15", "12345678901"]) {
      expect(parseRetryAfter(junk, now), String(junk)).toBeUndefined();
    }
  });
});

describe("turning a failing endpoint off", () => {
  const since = new Date("2026-06-10T00:00:00Z");
  it("needs both 5 days of failure and 10 failures in a row", () => {
    expect(
      shouldDisableEndpoint(
        policy,
        { failingSince: since, failures: 10 },
        new Date(since.getTime() + 5 * DAY),
      ),
    ).toBe(true);
    expect(
      shouldDisableEndpoint(
        policy,
        { failingSince: since, failures: 10 },
        new Date(since.getTime() + 5 * DAY - 1),
      ),
    ).toBe(false);
    expect(
      shouldDisableEndpoint(
        policy,
        { failingSince: since, failures: 9 },
        new Date(since.getTime() + 30 * DAY),
      ),
    ).toBe(false);
  });
});

describe("a receiver's answer as kept", () => {
  it("drops control characters and lone surrogates, keeps tabs and newlines, and redacts the given secrets", () => {
    const body = Buffer.from("ok\u0000\u0007\tline\nsig=abc123 key=whsec_Zm9vYmFy \ud800end", "utf8");
    expect(responseExcerpt(body, ["abc123"])).toBe("ok\tline\nsig=[redacted] key=[redacted] \ufffdend");
  });
});
