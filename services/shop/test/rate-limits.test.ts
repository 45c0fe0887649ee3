import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { RateLimits } from "../src/config.ts";
import { ShopKeys } from "../src/store/keys.ts";
import { availabilityPath, fakeClock, getWithKey, postWithKey, seedShop, shopApp } from "./support.ts";

const SMALL: RateLimits = {
  read: { limit: 3, windowSeconds: 60 },
  booking: { limit: 2, windowSeconds: 600 },
};

describe("per-key limits shared by every instance on one database", () => {
  test("reads spread over two instances share one budget per key", async ({ db }) => {
    const { key } = await seedShop(db);
    const clock = fakeClock("2026-06-15T06:00:20Z");
    const [a, b] = [shopApp(db, { clock, limits: SMALL }), shopApp(db, { clock, limits: SMALL })];
    expect((await getWithKey(a, availabilityPath(), key)).status).toBe(200);
    expect((await getWithKey(b, availabilityPath(), key)).status).toBe(200);
    expect((await getWithKey(a, availabilityPath(), key)).status).toBe(200);
    for (const instance of [b, a]) {
      const refused = await getWithKey(instance, availabilityPath(), key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe("40");
    }
  });

  test("parallel reads at two instances never pass the limit together", async ({ db }) => {
    const { key } = await seedShop(db);
    const clock = fakeClock("2026-06-15T06:00:00Z");
    const instances = [shopApp(db, { clock, limits: SMALL }), shopApp(db, { clock, limits: SMALL })];
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        getWithKey(instances[i % 2] as (typeof instances)[0], availabilityPath(), key),
      ),
    );
    expect(results.filter((res) => res.status === 200)).toHaveLength(3);
    expect(results.filter((res) => res.status === 429)).toHaveLength(9);
  });

  test("each key has its own budget, and reads and bookings are counted apart", async ({ db }) => {
    const { shop, services, key } = await seedShop(db);
    const other = await new ShopKeys(db).issue(shop.id, "second");
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z"), limits: SMALL });
    for (let read = 0; read < 3; read++)
      expect((await getWithKey(app, availabilityPath(), key)).status).toBe(200);
    expect((await getWithKey(app, availabilityPath(), key)).status).toBe(429);
    expect((await getWithKey(app, availabilityPath(), other.key)).status).toBe(200);
    const booking = { service: services[0]?.id, start: "2026-06-15T09:00:00+02:00" };
    expect((await postWithKey(app, "/api/shops/bookings", key, booking)).status).toBe(201);
  });

  test("when the window ends the key may read again", async ({ db }) => {
    const { key } = await seedShop(db);
    const clock = fakeClock("2026-06-15T06:00:59Z");
    const app = shopApp(db, { clock, limits: SMALL });
    for (let read = 0; read < 3; read++) await getWithKey(app, availabilityPath(), key);
    const refused = await getWithKey(app, availabilityPath(), key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("1");
    clock.set("2026-06-15T06:01:00Z");
    expect((await getWithKey(app, availabilityPath(), key)).status).toBe(200);
  });

  test("bookings over the limit are refused at the other instance with the seconds left in ten minutes", async ({
    db,
  }) => {
    const { services, key } = await seedShop(db);
    const clock = fakeClock("2026-06-15T06:05:00Z");
    const [a, b] = [shopApp(db, { clock, limits: SMALL }), shopApp(db, { clock, limits: SMALL })];
    const service = services[0]?.id;
    expect(
      (await postWithKey(a, "/api/shops/bookings", key, { service, start: "2026-06-15T09:00:00+02:00" }))
        .status,
    ).toBe(201);
    expect(
      (await postWithKey(b, "/api/shops/bookings", key, { service, start: "2026-06-15T09:30:00+02:00" }))
        .status,
    ).toBe(201);
    const refused = await postWithKey(a, "/api/shops/bookings", key, {
      service,
      start: "2026-06-15T10:00:00+02:00",
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("300");
    expect(await json(refused)).toMatchObject({ error: "RATE_LIMITED", limit: 2, windowSeconds: 600 });
  });
});
