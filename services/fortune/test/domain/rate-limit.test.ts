import { describe, expect, it } from "vitest";
import { decideLimit } from "../../src/domain/rate-limit.ts";

const limit = { perCategory: 3, windowMs: 24 * 3600_000 };
const now = new Date("2026-11-22T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const day = 24 * 3600;

/** The shared refusal: `retryAfterSeconds` until a use leaves, `resetSeconds` until the last one does. */
const refused = (retryAfterSeconds: number, resetSeconds: number) => ({
  allowed: false,
  limit: 3,
  remaining: 0,
  retryAfterSeconds,
  resetSeconds,
});

describe("the premium rate limit", () => {
  it("allows until the window holds the limit's number of uses", () => {
    expect(decideLimit([], limit, now)).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: day });
    expect(decideLimit([ago(3_000), ago(2_000)], limit, now)).toEqual({
      allowed: true,
      limit: 3,
      remaining: 0,
      resetSeconds: day,
    });
  });

  it("when full, says when the use that must leave does leave, in whole seconds, at least one", () => {
    const hour = 3600_000;
    const uses = [ago(23 * hour), ago(2 * hour), ago(hour)];
    expect(decideLimit(uses, limit, now)).toEqual(refused(3600, 23 * 3600));
    const leavingNow = [ago(limit.windowMs - 10), ago(10), ago(5)];
    expect(decideLimit(leavingNow, limit, now)).toEqual(refused(1, day));
  });

  it("with more uses than the limit (it was lowered), waits for enough of them to leave", () => {
    const hour = 3600_000;
    const uses = [ago(20 * hour), ago(10 * hour), ago(5 * hour), ago(hour)];
    expect(decideLimit(uses, limit, now)).toEqual(refused(14 * 3600, 23 * 3600));
  });
});
