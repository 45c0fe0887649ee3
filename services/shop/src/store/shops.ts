import { newId } from "@app/core";
import type { Database, Queryable } from "@app/db";
import type { LocalDate } from "../domain/calendar.ts";
import type { OpeningWindow, WeeklyHours } from "../domain/opening-hours.ts";
import type { ShopCalendar } from "../domain/slots.ts";

/** A shop as callers see it. */
export type Shop = { id: string; name: string; timeZone: string; currency: string };

export type NewShop = Omit<Shop, "id"> & { id?: string; hours: WeeklyHours };

export type Closure = { date: LocalDate; reason: string | null };

const SHOP_COLUMNS = `id, name, time_zone AS "timeZone", currency`;

async function insertHours(tx: Queryable, shopId: string, hours: WeeklyHours): Promise<void> {
  for (const window of hours) {
    await tx.query(
      "INSERT INTO shop.opening_hours (shop_id, weekday, opens_at, closes_at) VALUES ($1, $2, $3, $4)",
      [shopId, window.weekday, window.opensAt, window.closesAt],
    );
  }
}

/** Inserts a shop and its weekly hours; run it in a transaction. */
export async function insertShop(tx: Queryable, shop: NewShop): Promise<Shop> {
  const [created] = await tx.query<Shop>(
    `INSERT INTO shop.shops (id, name, time_zone, currency) VALUES ($1, $2, $3, $4) RETURNING ${SHOP_COLUMNS}`,
    [shop.id ?? newId("shop"), shop.name, shop.timeZone, shop.currency],
  );
  await insertHours(tx, (created as Shop).id, shop.hours);
  return created as Shop;
}

/** Creates a shop with its weekly hours. */
export async function createShop(db: Database, shop: NewShop): Promise<Shop> {
  return db.transaction((tx) => insertShop(tx, shop));
}

export async function findShop(db: Queryable, shopId: string): Promise<Shop | undefined> {
  const [shop] = await db.query<Shop>(`SELECT ${SHOP_COLUMNS} FROM shop.shops WHERE id = $1`, [shopId]);
  return shop;
}

export async function listShops(db: Queryable): Promise<Shop[]> {
  return db.query<Shop>(`SELECT ${SHOP_COLUMNS} FROM shop.shops ORDER BY name, id`);
}

/** Replaces a shop's weekly hours as a whole. */
export async function replaceHours(db: Database, shopId: string, hours: WeeklyHours): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query("DELETE FROM shop.opening_hours WHERE shop_id = $1", [shopId]);
    await insertHours(tx, shopId, hours);
  });
}

export async function readHours(db: Queryable, shopId: string): Promise<OpeningWindow[]> {
  return db.query<OpeningWindow>(
    `SELECT weekday, opens_at AS "opensAt", closes_at AS "closesAt" FROM shop.opening_hours
     WHERE shop_id = $1 ORDER BY weekday, opens_at`,
    [shopId],
  );
}

/** Closes the shop on a local date (again: the reason is updated). */
export async function addClosure(db: Queryable, shopId: string, closure: Closure): Promise<void> {
  await db.query(
    `INSERT INTO shop.closures (shop_id, day, reason) VALUES ($1, $2::date, $3)
     ON CONFLICT (shop_id, day) DO UPDATE SET reason = EXCLUDED.reason`,
    [shopId, closure.date, closure.reason],
  );
}

/** Reopens a closed date; false when it was not closed. */
export async function removeClosure(db: Queryable, shopId: string, date: LocalDate): Promise<boolean> {
  const rows = await db.query(
    "DELETE FROM shop.closures WHERE shop_id = $1 AND day = $2::date RETURNING day",
    [shopId, date],
  );
  return rows.length > 0;
}

/** Closures from `from` to `to` inclusive (all of them without bounds), dates as `YYYY-MM-DD`. */
export async function readClosures(
  db: Queryable,
  shopId: string,
  range: { from: LocalDate; to: LocalDate } = { from: "0001-01-01", to: "9999-12-31" },
): Promise<Closure[]> {
  return db.query<Closure>(
    `SELECT to_char(day, 'YYYY-MM-DD') AS date, reason FROM shop.closures
     WHERE shop_id = $1 AND day BETWEEN $2::date AND $3::date ORDER BY day`,
    [shopId, range.from, range.to],
  );
}

/** The shop's calendar for the local dates `from` … `to`: zone, weekly hours, closed days. */
export async function readCalendar(
  db: Queryable,
  shop: Shop,
  range: { from: LocalDate; to: LocalDate },
): Promise<ShopCalendar> {
  const hours = await readHours(db, shop.id);
  const closures = await readClosures(db, shop.id, range);
  return { timeZone: shop.timeZone, hours, closures: new Set(closures.map((closure) => closure.date)) };
}
