import { ApiError } from "@app/core";
import { describe, expect, test } from "vitest";
import { rateLimitedError, rateLimitHeaders } from "../../src/rate-limit/rate-limit-response.ts";

describe("the one 429", () => {
  test("every limited response carries the three RateLimit headers", () => {
    expect(rateLimitHeaders({ allowed: true, limit: 120, remaining: 7, resetSeconds: 42 })).toEqual({
      "RateLimit-Limit": "120",
      "RateLimit-Remaining": "7",
      "RateLimit-Reset": "42",
    });
  });

  test("a refusal is RATE_LIMITED with Retry-After, the headers, and the limit and wait in the body", () => {
    const error = rateLimitedError(
      { allowed: false, limit: 3, remaining: 0, resetSeconds: 30, retryAfterSeconds: 20 },
      "Slow down.",
      { windowSeconds: 60 },
    );
    expect(error).toBeInstanceOf(ApiError);
    expect(error.status).toBe(429);
    expect(error.code).toBe("RATE_LIMITED");
    expect(error.message).toBe("Slow down.");
    expect(error.details).toEqual({ limit: 3, retryAfterSeconds: 20, windowSeconds: 60 });
    expect(error.headers).toEqual({
      "Retry-After": "20",
      "RateLimit-Limit": "3",
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": "30",
    });
  });
});
