import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { fakeClock, getWithKey, postWithKey, seedShop, shopApp } from "../support.ts";

/**
 * A query parameter a route does not take is refused (400 `VALIDATION_FAILED`, the platform body,
 * the issue naming it), as the gateway refuses an unknown parameter of the shop tool, instead of
 * being ignored: a misspelt `partysize` would otherwise answer slots for a party of one.
 */
const MONDAY_MORNING = "2026-06-15T06:00:00Z";
const NINE = "2026-06-15T09:00:00+02:00";

const unknownParameter = (name: string) => ({
  error: "VALIDATION_FAILED",
  message: "The request is not valid in the query string.",
  issues: [{ path: "", message: `Unrecognized key: "${name}"` }],
});

describe("unknown query parameters", () => {
  test("GET /api/shops/agent-availability refuses a parameter it does not take, alone or beside known ones", async ({
    db,
  }) => {
    const { services, key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[0]?.id as string;
    for (const [query, name] of [
      ["partysize=2", "partysize"],
      [`service=${service}&days=1&partysize=2`, "partysize"],
      ["limit=5", "limit"],
      ["constructor=1", "constructor"],
      ["__proto__=1", "__proto__"],
    ] as const) {
      const res = await getWithKey(app, `/api/shops/agent-availability?${query}`, key);
      expect(res.status, query).toBe(400);
      expect(await json(res), query).toEqual(unknownParameter(name));
    }
    const known = await getWithKey(
      app,
      `/api/shops/agent-availability?service=${service}&from=2026-06-15&days=1&partySize=2`,
      key,
    );
    expect(known.status).toBe(200);
  });

  test("POST /api/shops/bookings takes no query parameter and books nothing with one", async ({ db }) => {
    const { services, key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[0]?.id as string;
    const res = await postWithKey(app, "/api/shops/bookings?partySize=2", key, { service, start: NINE });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual(unknownParameter("partySize"));
    const [row] = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM shop.bookings");
    expect(row?.count).toBe(0);
    const booked = await postWithKey(app, "/api/shops/bookings", key, { service, start: NINE });
    expect(booked.status).toBe(201);
  });

  test("a caller without a key still learns nothing about the parameters (401 first)", async ({ db }) => {
    await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(app, "/api/shops/agent-availability?partysize=2", undefined);
    expect(res.status).toBe(401);
    const booking = await postWithKey(app, "/api/shops/bookings?x=1", undefined, {});
    expect(booking.status).toBe(401);
  });
});
