import { newId } from "@app/core";
import type { Queryable } from "@app/db";

/** A service a shop offers; its price is kept in minor units of the shop's currency. */
export type Service = {
  id: string;
  shopId: string;
  name: string;
  durationMinutes: number;
  priceMinor: number;
  capacity: number;
};

export type NewService = Omit<Service, "id"> & { id?: string };

const SERVICE_COLUMNS = `id, shop_id AS "shopId", name, duration_minutes AS "durationMinutes",
  price_minor AS "priceMinor", capacity`;

export async function createService(db: Queryable, service: NewService): Promise<Service> {
  const [created] = await db.query<Service>(
    `INSERT INTO shop.services (id, shop_id, name, duration_minutes, price_minor, capacity)
     VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SERVICE_COLUMNS}`,
    [
      service.id ?? newId("svc"),
      service.shopId,
      service.name,
      service.durationMinutes,
      service.priceMinor,
      service.capacity,
    ],
  );
  return created as Service;
}

/** A shop's services, by name. */
export async function listServices(db: Queryable, shopId: string): Promise<Service[]> {
  return db.query<Service>(
    `SELECT ${SERVICE_COLUMNS} FROM shop.services WHERE shop_id = $1 ORDER BY name, id`,
    [shopId],
  );
}

/**
 * One service of one shop (another shop's service is not found). With `lock`, the row stays
 * locked until the transaction ends: bookings of the service are serialised across instances.
 */
export async function findService(
  db: Queryable,
  shopId: string,
  serviceId: string,
  options: { lock?: boolean } = {},
): Promise<Service | undefined> {
  const [service] = await db.query<Service>(
    `SELECT ${SERVICE_COLUMNS} FROM shop.services WHERE id = $1 AND shop_id = $2${options.lock ? " FOR UPDATE" : ""}`,
    [serviceId, shopId],
  );
  return service;
}
