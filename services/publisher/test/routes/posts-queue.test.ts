import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { setQueueSettings } from "../../src/store/accounts.ts";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

describe("POST /api/v1/queue: success", () => {
  test("takes the account's next free slot, then the one after for the same connection", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, { now: "2026-06-15T06:00:00Z" });
    const first = await json(
      await call(app, "POST", "/api/v1/queue", key, { text: "One", connectionIds: [bluesky] }),
    );
    expect(first).toEqual({
      success: true,
      postId: expect.stringMatching(/^post_/),
      scheduledFor: "2026-06-15T09:00:00.000Z",
      message: expect.stringContaining("2026-06-15T09:00:00.000Z"),
      platforms: ["bluesky"],
      connectionIds: [bluesky],
      scheduleSettings: { postsPerDay: 1, allowedDays: [0, 1, 2, 3, 4, 5, 6], timezone: "UTC" },
    });
    const second = await json(
      await call(app, "POST", "/api/v1/queue", key, { text: "Two", connectionIds: [bluesky] }),
    );
    expect(second.scheduledFor).toBe("2026-06-16T09:00:00.000Z");
  });

  test("another connection's posts do not take its slots", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const a = await seedConnection(db, accountId, "bluesky");
    const b = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    await call(app, "POST", "/api/v1/queue", key, { text: "A", connectionIds: [a] });
    const other = await json(
      await call(app, "POST", "/api/v1/queue", key, { text: "B", connectionIds: [b] }),
    );
    expect(other.scheduledFor).toBe("2026-06-15T09:00:00.000Z");
  });

  test("request settings override the smart schedule, in their time zone, across the DST change", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    // Saturday 7 March 2026, 15:00 in New York; the clocks go forward on Sunday 8 March.
    const { app } = publisherApp(db, { now: "2026-03-07T20:00:00Z" });
    const settings = { postsPerDay: 2, allowedDays: [1, 0], timezone: "America/New_York" };
    const slots: string[] = [];
    for (const text of ["1", "2", "3"]) {
      const body = await json(
        await call(app, "POST", "/api/v1/queue", key, { text, connectionIds: [bluesky], settings }),
      );
      slots.push(body.scheduledFor);
      expect(body.scheduleSettings).toEqual({
        postsPerDay: 2,
        allowedDays: [0, 1],
        timezone: "America/New_York",
      });
    }
    // Sunday 09:00 and 17:00 EDT (UTC-4), then Monday 09:00 EDT.
    expect(slots).toEqual([
      "2026-03-08T13:00:00.000Z",
      "2026-03-08T21:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
    ]);
  });

  test("the account's saved schedule is used when the request has none", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    await setQueueSettings(db, accountId, { postsPerDay: 3, allowedDays: [2], timeZone: "Europe/Berlin" });
    const { app } = publisherApp(db, { now: "2026-06-15T06:00:00Z" });
    const body = await json(
      await call(app, "POST", "/api/v1/queue", key, { text: "Hi", connectionIds: [bluesky] }),
    );
    // Tuesday 16 June, 09:00 CEST.
    expect(body.scheduledFor).toBe("2026-06-16T07:00:00.000Z");
    expect(body.scheduleSettings).toEqual({ postsPerDay: 3, allowedDays: [2], timezone: "Europe/Berlin" });
  });

  test("concurrent queue calls for one connection take different slots", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    const answers = await Promise.all(
      ["a", "b", "c"].map((text) =>
        call(app, "POST", "/api/v1/queue", key, { text, connectionIds: [bluesky] }).then(json),
      ),
    );
    expect(new Set(answers.map((a) => a.scheduledFor)).size).toBe(3);
  });
});

describe("POST /api/v1/queue: errors", () => {
  test("NO_SLOTS when every slot of the horizon is taken", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db, { now: "2026-06-15T06:00:00Z" });
    // Block every Sunday 09:00 for 13 weeks and more with scheduled posts at those instants.
    for (let week = 0; week < 14; week += 1) {
      const when = new Date(Date.UTC(2026, 5, 21 + week * 7, 9)).toISOString();
      const res = await call(app, "POST", "/api/v1/schedule", key, {
        text: "x",
        connectionIds: [bluesky],
        scheduledFor: when,
      });
      expect(res.status).toBe(200);
    }
    const res = await call(app, "POST", "/api/v1/queue", key, {
      text: "Hi",
      connectionIds: [bluesky],
      settings: { allowedDays: [0] },
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error: "NO_SLOTS" });
  });

  test("settings out of range or an unknown time zone are refused", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app } = publisherApp(db);
    for (const settings of [
      { postsPerDay: 4 },
      { allowedDays: [7] },
      { allowedDays: [] },
      { timezone: "Mars/Olympus" },
    ]) {
      const res = await call(app, "POST", "/api/v1/queue", key, {
        text: "Hi",
        connectionIds: [bluesky],
        settings,
      });
      expect(res.status).toBe(400);
      expect((await json(res)).issues[0].path).toMatch(/^settings\./);
    }
  });
});

describe("POST /api/v1/queue: security", () => {
  test("a read-only key may not queue", async ({ db }) => {
    const { key } = await seedAccount(db, { scopes: ["posts:read"] });
    const { app } = publisherApp(db);
    expect((await call(app, "POST", "/api/v1/queue", key, {})).status).toBe(403);
  });
});
