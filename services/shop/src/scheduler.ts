import type { Clock } from "@app/core";
import type { Database, Queryable } from "@app/db";
import { addDays, dateIn, isSupportedDate, type LocalDate } from "./domain/calendar.ts";
import { openSlots, type Slot, searchRange, slotStartingAt } from "./domain/slots.ts";
import { type Booking, insertBooking, placesHeldBetween } from "./store/bookings.ts";
import { findService, listServices, type Service } from "./store/services.ts";
import { findShop, readCalendar, type Shop } from "./store/shops.ts";

/** A shop and what it offers. */
export type Catalog = { shop: Shop; services: Service[] };

export type SlotsRequest = {
  serviceId: string;
  /** First local date searched; default today in the shop's zone. */
  from?: LocalDate;
  days: number;
  partySize: number;
};

/** Why a request about one service cannot be answered. */
export type ServiceRefusal = { kind: "unknown-service" } | { kind: "party-too-large"; capacity: number };

export type SlotsResult = ({ kind: "slots"; slots: Slot[] } & Catalog) | ServiceRefusal;

export type BookingRequest = { serviceId: string; start: Date; partySize: number; name?: string };

export type BookingResult =
  | { kind: "booked"; shop: Shop; service: Service; booking: Booking }
  | { kind: "slot-unavailable" }
  | ServiceRefusal;

/** Availability and bookings of a shop's services: the store and the pure slot rules put together. */
export class Scheduler {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** The shop a key belongs to, and its services. */
  async catalog(shopId: string): Promise<Catalog> {
    const shop = await findShop(this.db, shopId);
    if (!shop) throw new Error(`Shop ${shopId} has a key but no record.`);
    return { shop, services: await listServices(this.db, shopId) };
  }

  /** The open slots of one service over the requested days, with the catalog. */
  async slots(shopId: string, request: SlotsRequest): Promise<SlotsResult> {
    const catalog = await this.catalog(shopId);
    const service = catalog.services.find((candidate) => candidate.id === request.serviceId);
    if (!service) return { kind: "unknown-service" };
    if (request.partySize > service.capacity) return { kind: "party-too-large", capacity: service.capacity };
    const now = this.clock.now();
    const from = request.from ?? dateIn(catalog.shop.timeZone, now);
    const slots = await this.computeSlots(this.db, catalog.shop, service, {
      from,
      days: request.days,
      partySize: request.partySize,
      now,
    });
    return { kind: "slots", ...catalog, slots };
  }

  /**
   * Books `partySize` places in the slot starting at `start`, if it is open for them. The
   * service's row is locked for the check and the insert, so concurrent bookings of a service,
   * at any instance, are decided one after another and never exceed its capacity.
   */
  async book(shopId: string, request: BookingRequest): Promise<BookingResult> {
    return this.db.transaction(async (tx) => {
      const service = await findService(tx, shopId, request.serviceId, { lock: true });
      if (!service) return { kind: "unknown-service" };
      if (request.partySize > service.capacity)
        return { kind: "party-too-large", capacity: service.capacity };
      const shop = (await findShop(tx, shopId)) as Shop;
      const day = dateIn(shop.timeZone, request.start);
      if (!isSupportedDate(day)) return { kind: "slot-unavailable" };
      const now = this.clock.now();
      const slots = await this.computeSlots(tx, shop, service, {
        from: day,
        days: 1,
        partySize: request.partySize,
        now,
      });
      const slot = slotStartingAt(slots, request.start);
      if (!slot) return { kind: "slot-unavailable" };
      const booking = await insertBooking(tx, {
        shopId,
        serviceId: service.id,
        start: slot.start,
        end: slot.end,
        partySize: request.partySize,
        name: request.name ?? null,
      });
      return { kind: "booked", shop, service, booking };
    });
  }

  private async computeSlots(
    db: Queryable,
    shop: Shop,
    service: Service,
    search: { from: LocalDate; days: number; partySize: number; now: Date },
  ): Promise<Slot[]> {
    const calendar = await readCalendar(db, shop, {
      from: search.from,
      to: addDays(search.from, search.days - 1),
    });
    const bookings = await placesHeldBetween(
      db,
      service.id,
      searchRange(shop.timeZone, search.from, search.days),
    );
    return openSlots({ calendar, service, bookings, ...search });
  }
}
