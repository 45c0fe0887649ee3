import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount } from "../support.ts";

describe("the per-key request limit", () => {
  test("past the limit a key gets 429 with Retry-After until the window ends, across app instances", async ({
    db,
  }) => {
    const { key } = await seedAccount(db);
    const other = await seedAccount(db);
    const first = publisherApp(db, {
      now: "2026-06-15T06:00:30Z",
      rateLimit: { limit: 3, windowSeconds: 60 },
    });
    const second = publisherApp(db, {
      now: "2026-06-15T06:00:30Z",
      rateLimit: { limit: 3, windowSeconds: 60 },
    });
    for (const app of [first.app, second.app, first.app]) {
      expect((await call(app, "GET", "/api/v1/groups", key)).status).toBe(200);
    }
    const limited = await call(second.app, "GET", "/api/v1/groups", key);
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("30");
    expect(await json(limited)).toMatchObject({
      error: "RATE_LIMITED",
      limit: 3,
      windowSeconds: 60,
      retryAfterSeconds: 30,
    });
    expect((await call(first.app, "GET", "/api/v1/groups", other.key)).status).toBe(200);
    first.clock.advance(30_000);
    expect((await call(first.app, "GET", "/api/v1/groups", key)).status).toBe(200);
  });

  test("the spec's default is 120 requests a minute", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const statuses: number[] = [];
    for (let n = 0; n < 121; n += 1)
      statuses.push((await call(app, "GET", "/api/v1/connections", key)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(120);
    expect(statuses.at(-1)).toBe(429);
  });
});
