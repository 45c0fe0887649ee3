import type { Clock, Logger, ServiceApp } from "@app/core";
import type { Database } from "@app/db";
import { silentLogger } from "@app/testkit";
import { createApp } from "../src/app.ts";
import { DEFAULT_LIMITS, type RateLimits } from "../src/config.ts";
import { parseWeeklyHours } from "../src/domain/opening-hours.ts";
import { ShopKeys } from "../src/store/keys.ts";
import { createService, type NewService, type Service } from "../src/store/services.ts";
import { createShop, type Shop } from "../src/store/shops.ts";

export { type FakeClock, fakeClock } from "@app/testkit";

/** A shop app on a test database, with a fake clock and the spec's limits unless told otherwise. */
export function shopApp(
  db: Database,
  options: { clock: Clock; limits?: RateLimits; logger?: Logger },
): ServiceApp {
  return createApp({
    db,
    logger: options.logger ?? silentLogger(),
    clock: options.clock,
    limits: options.limits ?? DEFAULT_LIMITS,
  });
}

type ServiceSpec = Omit<NewService, "shopId" | "id">;

export type SeededShop = { shop: Shop; services: Service[]; key: string; keyId: string };

/** A shop with its services and one key, created straight in the store (each test makes its own). */
export async function seedShop(
  db: Database,
  spec: {
    name?: string;
    timeZone?: string;
    currency?: string;
    hours?: string;
    services?: ServiceSpec[];
  } = {},
): Promise<SeededShop> {
  const shop = await createShop(db, {
    name: spec.name ?? "Test Barbers",
    timeZone: spec.timeZone ?? "Europe/Berlin",
    currency: spec.currency ?? "EUR",
    hours: parseWeeklyHours(spec.hours ?? "mon-sun 09:00-17:00"),
  });
  const services: Service[] = [];
  for (const service of spec.services ?? [
    { name: "Haircut", durationMinutes: 30, priceMinor: 2800, capacity: 2 },
  ]) {
    services.push(await createService(db, { ...service, shopId: shop.id }));
  }
  const issued = await new ShopKeys(db).issue(shop.id, "test");
  return { shop, services, key: issued.key, keyId: issued.id };
}

/** GET with a shop key (none when `key` is undefined). */
export function getWithKey(app: ServiceApp, path: string, key: string | undefined): Promise<Response> {
  return Promise.resolve(app.request(path, { headers: key === undefined ? {} : { "x-shop-key": key } }));
}

/** POST a JSON body with a shop key. */
export function postWithKey(
  app: ServiceApp,
  path: string,
  key: string | undefined,
  body: unknown,
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key !== undefined) headers["x-shop-key"] = key;
  return Promise.resolve(
    app.request(path, {
      method: "POST",
      headers,
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );
}

/** The availability path with a query. */
export function availabilityPath(query: Record<string, string | number> = {}): string {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]));
  const text = search.toString();
  return `/api/shops/agent-availability${text ? `?${text}` : ""}`;
}
