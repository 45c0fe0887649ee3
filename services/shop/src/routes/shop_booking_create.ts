import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { formatInZone } from "../domain/calendar.ts";
import { ShopError } from "../errors.ts";
import {
  partyTooLarge,
  type RouteDeps,
  SHOP_KEY_RESPONSES,
  SHOP_KEY_SECURITY,
  type ShopApp,
  serviceNotFound,
  shopKeyGuard,
} from "./shared.ts";
import { PARTY_SIZE } from "./shop_agent_availability.ts";

const NewBooking = z
  .object({
    service: z.string().min(1).max(64).openapi({ example: "svc_demo_haircut" }),
    start: z.iso.datetime({ offset: true }).openapi({
      example: "2026-03-30T09:00:00+02:00",
      description: "A slot's `start`, with an offset or Z",
    }),
    partySize: z.number().int().min(PARTY_SIZE.min).max(PARTY_SIZE.max).default(PARTY_SIZE.default),
    name: z.string().trim().min(1).max(100).optional().openapi({ description: "Who the booking is for" }),
  })
  .openapi("NewBooking");

/** The booking takes everything in its body: any query parameter is refused, not ignored. */
const NoQuery = z.strictObject({});

const BookingSchema = z
  .object({
    id: z.string().openapi({ example: "bkg_3kTq…" }),
    service: z.string(),
    start: z.string().openapi({ example: "2026-03-30T09:00:00+02:00" }),
    end: z.string().openapi({ example: "2026-03-30T09:30:00+02:00" }),
    partySize: z.number().int(),
    name: z.string().nullable(),
    createdAt: z.string().openapi({ description: "ISO 8601 UTC" }),
  })
  .openapi("Booking");

/** POST /api/shops/bookings: books places in an open slot, atomically (never past the service's capacity). */
export function registerShopBookingCreate(app: ShopApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "post",
    path: "/api/shops/bookings",
    operationId: "shop_booking_create",
    tags: ["Shop"],
    summary: "Book an open slot",
    security: SHOP_KEY_SECURITY,
    middleware: shopKeyGuard(deps, "booking"),
    request: {
      query: NoQuery,
      body: { required: true, content: { "application/json": { schema: NewBooking } } },
    },
    responses: {
      201: jsonResponse(z.object({ booking: BookingSchema }), "Booked"),
      400: errorResponseSpec("Invalid body or a query parameter (VALIDATION_FAILED, MALFORMED_JSON)"),
      ...SHOP_KEY_RESPONSES,
      404: errorResponseSpec("The shop has no such service (SERVICE_NOT_FOUND)"),
      409: errorResponseSpec("No open slot starts then for this party (SLOT_UNAVAILABLE)"),
    },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    const { shopId } = c.var.caller;
    const result = await deps.scheduler.book(shopId, {
      serviceId: body.service,
      start: new Date(body.start),
      partySize: body.partySize,
      name: body.name,
    });
    if (result.kind === "unknown-service") throw serviceNotFound(body.service);
    if (result.kind === "party-too-large") throw partyTooLarge(result.capacity);
    if (result.kind === "slot-unavailable") {
      throw new ShopError(
        "SLOT_UNAVAILABLE",
        `No open slot of this service starts at ${body.start} for a party of ${body.partySize}.`,
        { service: body.service, start: body.start, partySize: body.partySize },
      );
    }
    const { booking, shop } = result;
    return c.json(
      {
        booking: {
          id: booking.id,
          service: booking.serviceId,
          start: formatInZone(booking.start, shop.timeZone),
          end: formatInZone(booking.end, shop.timeZone),
          partySize: booking.partySize,
          name: booking.name,
          createdAt: booking.createdAt.toISOString(),
        },
      },
      201,
    );
  });
}
