import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { fakeClock, postWithKey, seedShop, shopApp } from "../support.ts";

/** Attack: a NUL in a booking's name was a 500 (PostgreSQL refuses the byte); a lone surrogate was stored as U+FFFD. */
describe("audit: a NUL or an unpaired surrogate in a booking's name", () => {
  test("is a 400 naming the field, and nothing is booked", async ({ db }) => {
    const { services, key } = await seedShop(db, {
      services: [{ name: "Haircut", durationMinutes: 30, priceMinor: 2800, capacity: 2 }],
    });
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z") });
    for (const name of ["Ada\u0000", "Ada \uDC00"]) {
      const res = await postWithKey(app, "/api/shops/bookings", key, {
        service: services[0]?.id,
        start: "2026-06-15T09:00:00+02:00",
        name,
      });
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "name" }] });
    }
    const [row] = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM shop.bookings");
    expect(row?.count).toBe(0);
  });
});
