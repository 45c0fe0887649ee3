import type { Database } from "@app/db";
import type { DemoSeeder } from "@app/runtime";
import { parseWeeklyHours } from "./domain/opening-hours.ts";
import { ShopKeys } from "./store/keys.ts";
import { createService, type NewService } from "./store/services.ts";
import { findShop, insertShop } from "./store/shops.ts";

/** Local use only (the launcher and tests import it; production code never does). */
export const DEMO_SHOP_ID = "shop_demo_barber";

/** The label of the demo shop's launcher key: each seeding revokes the keys bearing it. */
export const DEMO_KEY_LABEL = "demo";

const DEMO_SERVICES: Omit<NewService, "shopId">[] = [
  { id: "svc_demo_haircut", name: "Haircut", durationMinutes: 30, priceMinor: 2800, capacity: 2 },
  { id: "svc_demo_beard_trim", name: "Beard trim", durationMinutes: 20, priceMinor: 1500, capacity: 1 },
  { id: "svc_demo_shave_class", name: "Wet shave class", durationMinutes: 90, priceMinor: 4500, capacity: 6 },
];

/**
 * Seeds the demo shop for `npm start`: a barber in Europe/Berlin (EUR), open Monday to Friday
 * 09:00–18:00 and Saturday 10:00–16:00, with three services (one with capacity 6). Idempotent:
 * the shop and services are created once. The key cannot be read back from its hash, so every
 * call issues a fresh demo key and revokes the previous one: the key returned always works, and
 * a key printed by an earlier start stops working. Concurrent calls are serialised.
 */
export async function seedDemoShop(db: Database): Promise<{ shopId: string; shopKey: string }> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT pg_advisory_xact_lock(hashtext('shop.demo'))");
    if (!(await findShop(tx, DEMO_SHOP_ID))) {
      await insertShop(tx, {
        id: DEMO_SHOP_ID,
        name: "Kiez Barbers (demo)",
        timeZone: "Europe/Berlin",
        currency: "EUR",
        hours: parseWeeklyHours("mon-fri 09:00-18:00; sat 10:00-16:00"),
      });
      for (const service of DEMO_SERVICES) await createService(tx, { ...service, shopId: DEMO_SHOP_ID });
    }
    await tx.query(
      "UPDATE shop.shop_keys SET revoked_at = now() WHERE shop_id = $1 AND label = $2 AND revoked_at IS NULL",
      [DEMO_SHOP_ID, DEMO_KEY_LABEL],
    );
    const issued = await new ShopKeys(tx).issue(DEMO_SHOP_ID, DEMO_KEY_LABEL);
    return { shopId: DEMO_SHOP_ID, shopKey: issued.key };
  });
}

/** The shop's demo for `npm start`: the demo barber and a fresh shop key. */
export const seedDemo: DemoSeeder = ({ db }) => seedDemoShop(db);
