import { newId } from "@app/core";
import type { Queryable } from "@app/db";
import type { HeldPlaces } from "../domain/slots.ts";

/** A booking as stored. */
export type Booking = {
  id: string;
  serviceId: string;
  start: Date;
  end: Date;
  partySize: number;
  name: string | null;
  createdAt: Date;
};

export type NewBooking = Omit<Booking, "id" | "createdAt"> & { shopId: string };

/** The places held in a service by bookings overlapping `[start, end)`. */
export async function placesHeldBetween(
  db: Queryable,
  serviceId: string,
  range: { start: Date; end: Date },
): Promise<HeldPlaces[]> {
  return db.query<HeldPlaces>(
    `SELECT starts_at AS start, ends_at AS "end", party_size AS "partySize" FROM shop.bookings
     WHERE service_id = $1 AND starts_at < $3 AND ends_at > $2`,
    [serviceId, range.start, range.end],
  );
}

export async function insertBooking(db: Queryable, booking: NewBooking): Promise<Booking> {
  const [created] = await db.query<Booking>(
    `INSERT INTO shop.bookings (id, shop_id, service_id, starts_at, ends_at, party_size, customer_name)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING id, service_id AS "serviceId", starts_at AS start, ends_at AS "end", party_size AS "partySize",
       customer_name AS name, created_at AS "createdAt"`,
    [
      newId("bkg"),
      booking.shopId,
      booking.serviceId,
      booking.start,
      booking.end,
      booking.partySize,
      booking.name,
    ],
  );
  return created as Booking;
}
