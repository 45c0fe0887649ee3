import { createErrorHandler } from "@app/core";
import { silentLogger } from "@app/testkit";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { idempotencyKeyReused, requestInProgress } from "../../src/idempotency/idempotency-errors.ts";
import { idempotencyKeyOf, parseIdempotencyKey } from "../../src/idempotency/idempotency-key.ts";

describe("the Idempotency-Key header", () => {
  it("takes a Structured Field string's content as the key, and a bare key of visible ASCII as it stands", () => {
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe(
      "8e03978e-40d5-43e8-bc93-6894a57f9324",
    );
    expect(parseIdempotencyKey('"a \\"quoted\\" key"')).toBe('a "quoted" key');
    expect(parseIdempotencyKey('"abc";v=1')).toBe("abc");
    expect(parseIdempotencyKey("pay-once")).toBe("pay-once");
    expect(parseIdempotencyKey("123")).toBe("123");
    expect(parseIdempotencyKey("x".repeat(255))).toBe("x".repeat(255));
    expect(parseIdempotencyKey(`"${"x".repeat(255)}"`)).toBe("x".repeat(255));
  });

  it("refuses an empty, too long, non-ASCII, spaced or badly quoted key", () => {
    for (const value of [
      "",
      '""',
      "x".repeat(256),
      `"${"x".repeat(256)}"`,
      "clé",
      "a b",
      '"abc',
      '"',
      '"a"b',
    ]) {
      expect(parseIdempotencyKey(value), JSON.stringify(value)).toBeUndefined();
    }
  });

  it("a malformed key is the platform's 400 VALIDATION_FAILED naming the header; none is no key", async () => {
    const app = new Hono();
    app.onError(createErrorHandler(silentLogger()));
    app.post("/op", (c) => c.json({ key: idempotencyKeyOf(c) ?? null }));
    const bad = await app.request("/op", { method: "POST", headers: { "Idempotency-Key": "a".repeat(256) } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: "VALIDATION_FAILED",
      message: "The request is not valid in the headers.",
      issues: [{ path: "Idempotency-Key", message: expect.stringMatching(/1 to 255/) }],
    });
    const none = await app.request("/op", { method: "POST" });
    expect(await none.json()).toEqual({ key: null });
    const quoted = await app.request("/op", { method: "POST", headers: { "Idempotency-Key": '"k-1"' } });
    expect(await quoted.json()).toEqual({ key: "k-1" });
  });

  it("a key reused on another request is 422, and one still in flight 409 with Retry-After (the draft's statuses)", () => {
    expect(idempotencyKeyReused()).toMatchObject({ status: 422, code: "IDEMPOTENCY_KEY_REUSED" });
    const inProgress = requestInProgress(5);
    expect(inProgress).toMatchObject({
      status: 409,
      code: "REQUEST_IN_PROGRESS",
      headers: { "Retry-After": "5" },
    });
    expect(inProgress.toBody()).toMatchObject({ retryAfterSeconds: 5 });
  });
});
