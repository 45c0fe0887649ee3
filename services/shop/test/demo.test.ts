import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { DEMO_SHOP_ID, seedDemoShop } from "../src/demo.ts";
import { availabilityPath, fakeClock, getWithKey, shopApp } from "./support.ts";

describe("the demo shop for npm start", () => {
  test("it is seeded once; each seeding hands out a working key and revokes the one before", async ({
    db,
  }) => {
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z") });
    const first = await seedDemoShop(db);
    const second = await seedDemoShop(db);
    expect(first.shopId).toBe(DEMO_SHOP_ID);
    expect(second.shopId).toBe(DEMO_SHOP_ID);
    expect((await getWithKey(app, availabilityPath(), first.shopKey)).status).toBe(401);
    const res = await getWithKey(app, availabilityPath(), second.shopKey);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.shop).toMatchObject({ id: DEMO_SHOP_ID, timeZone: "Europe/Berlin", currency: "EUR" });
    expect(body.services).toHaveLength(3);
    expect(body.services.some((service: { capacity: number }) => service.capacity > 1)).toBe(true);
    const [counted] = await db.query<{ shops: number }>(
      "SELECT count(*)::int AS shops FROM shop.shops WHERE id = $1",
      [DEMO_SHOP_ID],
    );
    expect(counted?.shops).toBe(1);
  });

  test("its services have slots on a weekday", async ({ db }) => {
    const { shopKey } = await seedDemoShop(db);
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z") });
    const catalog = await json(await getWithKey(app, availabilityPath(), shopKey));
    const haircut = catalog.services.find((service: { name: string }) => service.name === "Haircut");
    const body = await json(
      await getWithKey(app, availabilityPath({ service: haircut.id, days: 1 }), shopKey),
    );
    expect(body.slots[0]).toEqual({
      start: "2026-06-15T09:00:00+02:00",
      end: "2026-06-15T09:30:00+02:00",
      capacityLeft: 2,
    });
  });

  test("two instances seeding at once leave one shop and one working demo key", async ({ db }) => {
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z") });
    const seeded = await Promise.all([seedDemoShop(db), seedDemoShop(db)]);
    const statuses = await Promise.all(
      seeded.map(({ shopKey }) => getWithKey(app, availabilityPath(), shopKey)),
    );
    expect(statuses.map((res) => res.status).sort()).toEqual([200, 401]);
  });
});
