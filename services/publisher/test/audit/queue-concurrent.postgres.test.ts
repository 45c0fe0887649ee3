/** Audit: concurrent POST /api/v1/queue for one account and connection on PostgreSQL. */
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

describe("audit: queue slots under concurrency (PostgreSQL)", () => {
  test("12 concurrent queue requests for one connection get 12 distinct slots", async ({ db }) => {
    const { key, accountId } = await seedAccount(db);
    const connection = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, { now: "2026-03-07T12:00:00Z" });
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, n) =>
        call(app, "POST", "/api/v1/queue", key, {
          caption: `queued ${n}`,
          connectionIds: [connection],
          settings: { postsPerDay: 3, allowedDays: [0, 1, 2, 3, 4, 5, 6], timezone: "America/New_York" },
        }).then(json),
      ),
    );
    const slots = answers.map((a) => a.scheduledFor as string);
    expect(slots.every(Boolean)).toBe(true);
    expect(new Set(slots).size).toBe(12);
    // 12:00Z is 07:00 EST: 09:00 EST (14:00Z) is the first slot; the next day is the spring-forward.
    expect(slots.sort()[0]).toBe("2026-03-07T14:00:00.000Z");
    expect(slots).toContain("2026-03-08T13:00:00.000Z"); // 09:00 EDT on the day of the jump
  });
});
