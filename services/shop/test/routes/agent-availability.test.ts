import { captureLogs, json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { ShopKeys } from "../../src/store/keys.ts";
import { availabilityPath, fakeClock, getWithKey, postWithKey, seedShop, shopApp } from "../support.ts";

// Monday 15 June 2026, 08:00 in Berlin.
const MONDAY_MORNING = "2026-06-15T06:00:00Z";

const SERVICES = [
  { name: "Haircut", durationMinutes: 30, priceMinor: 2800, capacity: 2 },
  { name: "Beard trim", durationMinutes: 20, priceMinor: 1500, capacity: 1 },
];

describe("GET /api/shops/agent-availability: success", () => {
  test("without a service it answers the key's shop and its services, prices as decimal strings", async ({
    db,
  }) => {
    const { shop, services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(app, availabilityPath(), key);
    expect(res.status).toBe(200);
    const [haircut, beard] = services;
    expect(await json(res)).toEqual({
      shop: { id: shop.id, name: "Test Barbers", timeZone: "Europe/Berlin", currency: "EUR" },
      services: [
        {
          id: beard?.id,
          name: "Beard trim",
          durationMinutes: 20,
          price: { amount: "15.00", currency: "EUR" },
          capacity: 1,
        },
        {
          id: haircut?.id,
          name: "Haircut",
          durationMinutes: 30,
          price: { amount: "28.00", currency: "EUR" },
          capacity: 2,
        },
      ],
    });
  });

  test("with a service it adds the open slots of seven days from today, in the shop's offset", async ({
    db,
  }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const body = await json(
      await getWithKey(app, availabilityPath({ service: services[0]?.id as string }), key),
    );
    expect(body.services).toHaveLength(2);
    expect(body.slots).toHaveLength(7 * 16);
    expect(body.slots[0]).toEqual({
      start: "2026-06-15T09:00:00+02:00",
      end: "2026-06-15T09:30:00+02:00",
      capacityLeft: 2,
    });
    expect(body.slots.at(-1).start).toBe("2026-06-21T16:30:00+02:00");
  });

  test("from, days and partySize choose the days searched and the places needed", async ({ db }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const path = availabilityPath({
      service: services[0]?.id as string,
      from: "2026-06-20",
      days: 2,
      partySize: 2,
    });
    const body = await json(await getWithKey(app, path, key));
    expect(body.slots).toHaveLength(32);
    expect(body.slots[0].start).toBe("2026-06-20T09:00:00+02:00");
    expect(body.slots.at(-1).start).toBe("2026-06-21T16:30:00+02:00");
  });

  test("from defaults to today in the shop's zone when UTC is already tomorrow", async ({ db }) => {
    const { services, key } = await seedShop(db, {
      timeZone: "America/Los_Angeles",
      currency: "USD",
      hours: "mon-sun 09:00-22:00",
    });
    // 03:00 UTC on 11 June is 20:00 on 10 June in Los Angeles.
    const app = shopApp(db, { clock: fakeClock("2026-06-11T03:00:00Z") });
    const body = await json(
      await getWithKey(app, availabilityPath({ service: services[0]?.id as string, days: 1 }), key),
    );
    expect(body.slots.map((s: { start: string }) => s.start)).toEqual([
      "2026-06-10T20:00:00-07:00",
      "2026-06-10T20:30:00-07:00",
      "2026-06-10T21:00:00-07:00",
      "2026-06-10T21:30:00-07:00",
    ]);
  });

  test("from defaults to today in the shop's zone when UTC is still yesterday", async ({ db }) => {
    const { services, key } = await seedShop(db, {
      timeZone: "Asia/Kolkata",
      currency: "INR",
      hours: "mon-sun 09:00-10:00",
    });
    // 20:00 UTC on 10 June is 01:30 on 11 June in Kolkata.
    const app = shopApp(db, { clock: fakeClock("2026-06-10T20:00:00Z") });
    const body = await json(
      await getWithKey(app, availabilityPath({ service: services[0]?.id as string, days: 1 }), key),
    );
    expect(body.slots.map((s: { start: string }) => s.start)).toEqual([
      "2026-06-11T09:00:00+05:30",
      "2026-06-11T09:30:00+05:30",
    ]);
  });

  test("slots that began before now are not offered", async ({ db }) => {
    const { services, key } = await seedShop(db);
    // 10:40 in Berlin.
    const app = shopApp(db, { clock: fakeClock("2026-06-15T08:40:00Z") });
    const body = await json(
      await getWithKey(app, availabilityPath({ service: services[0]?.id as string, days: 1 }), key),
    );
    expect(body.slots[0].start).toBe("2026-06-15T11:00:00+02:00");
    expect(body.slots).toHaveLength(12);
  });

  test("bookings lower a slot's capacityLeft, and a party that no longer fits does not see it", async ({
    db,
  }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[0]?.id as string;
    const booked = await postWithKey(app, "/api/shops/bookings", key, {
      service,
      start: "2026-06-15T09:00:00+02:00",
    });
    expect(booked.status).toBe(201);
    const forOne = await json(await getWithKey(app, availabilityPath({ service, days: 1 }), key));
    expect(forOne.slots.slice(0, 2).map((s: { capacityLeft: number }) => s.capacityLeft)).toEqual([1, 2]);
    const forTwo = await json(
      await getWithKey(app, availabilityPath({ service, days: 1, partySize: 2 }), key),
    );
    expect(forTwo.slots[0].start).toBe("2026-06-15T09:30:00+02:00");
  });

  test("the OpenAPI document describes the query and the shop key scheme", async ({ db }) => {
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const document = await json(await app.request("/openapi.json"));
    const operation = document.paths["/api/shops/agent-availability"].get;
    expect(operation.operationId).toBe("shop_agent_availability");
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual([
      "service",
      "from",
      "days",
      "partySize",
    ]);
    expect(operation.security).toEqual([{ shopKey: [] }]);
    expect(document.components.securitySchemes.shopKey).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "x-shop-key",
    });
  });
});

describe("GET /api/shops/agent-availability: errors", () => {
  test.for<[string, Record<string, string>, string]>([
    ["days of 0", { days: "0" }, "days"],
    ["days over 31", { days: "32" }, "days"],
    ["days that are not a number", { days: "seven" }, "days"],
    ["days with a fraction", { days: "1.5" }, "days"],
    ["a partySize of 0", { partySize: "0" }, "partySize"],
    ["a date that does not exist", { from: "2026-02-30" }, "from"],
    ["a date in another format", { from: "15.06.2026" }, "from"],
    ["a date at the end of time", { from: "9999-12-31", days: "31" }, "from"],
    ["a date before the supported range", { from: "0000-01-01" }, "from"],
    ["an empty service", { service: "" }, "service"],
  ])("%s is a 400 VALIDATION_FAILED naming the parameter", async ([, query, path], { db }) => {
    const { services, key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(
      app,
      availabilityPath({ service: services[0]?.id as string, ...query }),
      key,
    );
    expect(res.status).toBe(400);
    const body = await json(res);
    expect(body).toMatchObject({ error: "VALIDATION_FAILED", message: expect.any(String) });
    expect(body.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
  });

  test("a partySize over the service's capacity is a 400 that says the capacity", async ({ db }) => {
    const { services, key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(
      app,
      availabilityPath({ service: services[0]?.id as string, partySize: 3 }),
      key,
    );
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "partySize", message: "must be at most 2, the service's capacity" }],
    });
  });

  test("a parameter given twice is a 400, not a guess", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(app, "/api/shops/agent-availability?days=1&days=2", key);
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("VALIDATION_FAILED");
  });

  test("an unknown service is a 404 SERVICE_NOT_FOUND", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(app, availabilityPath({ service: "svc_nope" }), key);
    expect(res.status).toBe(404);
    expect(await json(res)).toMatchObject({ error: "SERVICE_NOT_FOUND", service: "svc_nope" });
  });

  test("another method on the path is a 405 with Allow", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await postWithKey(app, "/api/shops/agent-availability", key, {});
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toContain("GET");
    expect((await json(res)).error).toBe("METHOD_NOT_ALLOWED");
  });

  test("the 121st read in a minute is a 429 RATE_LIMITED with Retry-After in seconds", async ({ db }) => {
    const { key } = await seedShop(db);
    // 15 s into a minute: the window ends in 45 s.
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:15Z") });
    for (let read = 1; read <= 120; read++) {
      expect((await getWithKey(app, availabilityPath(), key)).status).toBe(200);
    }
    const refused = await getWithKey(app, availabilityPath(), key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("45");
    expect(await json(refused)).toMatchObject({
      error: "RATE_LIMITED",
      limit: 120,
      windowSeconds: 60,
      retryAfterSeconds: 45,
    });
  });
});

describe("GET /api/shops/agent-availability: security", () => {
  test("no key, an unknown key, a revoked key and an overlong key are each a 401", async ({ db }) => {
    const { key, keyId } = await seedShop(db);
    const { key: revoked, keyId: revokedId } = await seedShop(db);
    await new ShopKeys(db).revoke(revokedId, new Date(MONDAY_MORNING));
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    for (const sent of [undefined, `${key}x`, "shk_guess", revoked, "k".repeat(5000)]) {
      const res = await getWithKey(app, availabilityPath(), sent);
      expect(res.status).toBe(401);
      expect((await json(res)).error).toBe("UNAUTHORIZED");
    }
    expect(keyId).not.toBe(revokedId);
    expect((await getWithKey(app, availabilityPath(), key)).status).toBe(200);
  });

  test("the key is checked before the query, so a caller without one learns nothing about it", async ({
    db,
  }) => {
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(app, availabilityPath({ days: "0", service: "svc_nope" }), undefined);
    expect(res.status).toBe(401);
  });

  test("a key sees only its own shop, and another shop's service is not found", async ({ db }) => {
    const mine = await seedShop(db, { name: "Mine" });
    const theirs = await seedShop(db, { name: "Theirs" });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    expect((await json(await getWithKey(app, availabilityPath(), mine.key))).shop.name).toBe("Mine");
    const res = await getWithKey(
      app,
      availabilityPath({ service: theirs.services[0]?.id as string }),
      mine.key,
    );
    expect(res.status).toBe(404);
  });

  test("the shop key never reaches the logs, even at debug", async ({ db }) => {
    const { key } = await seedShop(db);
    const { logger, lines } = captureLogs("debug");
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING), logger });
    expect((await getWithKey(app, availabilityPath(), key)).status).toBe(200);
    expect((await getWithKey(app, availabilityPath({ service: "x" }), `${key}-wrong`)).status).toBe(401);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.some((line) => line.includes("/api/shops/agent-availability"))).toBe(true);
    expect(lines.join("\n")).not.toContain(key);
  });
});
