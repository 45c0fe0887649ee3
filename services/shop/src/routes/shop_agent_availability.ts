import { createRoute, errorResponseSpec, jsonResponse, z } from "@app/core";
import { isSupportedDate, SUPPORTED_DATES } from "../domain/calendar.ts";
import { ServiceSchema, ShopSchema, SlotSchema, serviceView, shopView, slotView } from "./schemas.ts";
import {
  partyTooLarge,
  type RouteDeps,
  SHOP_KEY_RESPONSES,
  SHOP_KEY_SECURITY,
  type ShopApp,
  serviceNotFound,
  shopKeyGuard,
  wholeNumberParam,
} from "./shared.ts";

/** Bounds and defaults of the availability query. */
export const AVAILABILITY_DAYS = { min: 1, max: 31, default: 7 } as const;
export const PARTY_SIZE = { min: 1, max: 100, default: 1 } as const;

/** Strict: a parameter the route does not take (a misspelt `partysize`) is refused, not ignored. */
const AvailabilityQuery = z.strictObject({
  service: z
    .string()
    .min(1)
    .max(64)
    .optional()
    .openapi({ description: "A service id from the answer without `service`; adds `slots`" }),
  from: z
    .string()
    .refine(
      isSupportedDate,
      `must be a date written YYYY-MM-DD, from ${SUPPORTED_DATES.first} to ${SUPPORTED_DATES.last}`,
    )
    .optional()
    .openapi({
      format: "date",
      description: "First day, in the shop's time zone; default today there",
      example: "2026-03-30",
    }),
  days: wholeNumberParam(AVAILABILITY_DAYS.min, AVAILABILITY_DAYS.max).optional().openapi({
    type: "integer",
    minimum: AVAILABILITY_DAYS.min,
    maximum: AVAILABILITY_DAYS.max,
    default: AVAILABILITY_DAYS.default,
    description: "How many days from `from`: 1 to 31, default 7",
  }),
  partySize: wholeNumberParam(PARTY_SIZE.min, PARTY_SIZE.max).optional().openapi({
    type: "integer",
    minimum: PARTY_SIZE.min,
    default: PARTY_SIZE.default,
    description: "Places needed in one slot: 1 to the service's capacity, default 1",
  }),
});

const Availability = z
  .object({
    shop: ShopSchema,
    services: z.array(ServiceSchema),
    slots: z
      .array(SlotSchema)
      .optional()
      .openapi({ description: "Only with `service`: open slots in time order" }),
  })
  .openapi("Availability");

/** GET /api/shops/agent-availability: the key's shop and its services, and with `service` its open slots. */
export function registerShopAgentAvailability(app: ShopApp, deps: RouteDeps): void {
  const route = createRoute({
    method: "get",
    path: "/api/shops/agent-availability",
    operationId: "shop_agent_availability",
    tags: ["Shop"],
    summary: "The shop, its services and, for one service, its open slots",
    security: SHOP_KEY_SECURITY,
    middleware: shopKeyGuard(deps, "read"),
    request: { query: AvailabilityQuery },
    responses: {
      200: jsonResponse(Availability, "The shop and its services, with slots when `service` is given"),
      400: errorResponseSpec("Invalid query (VALIDATION_FAILED)"),
      ...SHOP_KEY_RESPONSES,
      404: errorResponseSpec("The shop has no such service (SERVICE_NOT_FOUND)"),
    },
  });
  app.openapi(route, async (c) => {
    const query = c.req.valid("query");
    const { shopId } = c.var.caller;
    if (query.service === undefined) {
      const { shop, services } = await deps.scheduler.catalog(shopId);
      return c.json({ shop: shopView(shop), services: services.map((s) => serviceView(s, shop)) }, 200);
    }
    const result = await deps.scheduler.slots(shopId, {
      serviceId: query.service,
      from: query.from,
      days: query.days ?? AVAILABILITY_DAYS.default,
      partySize: query.partySize ?? PARTY_SIZE.default,
    });
    if (result.kind === "unknown-service") throw serviceNotFound(query.service);
    if (result.kind === "party-too-large") throw partyTooLarge(result.capacity);
    const { shop, services, slots } = result;
    return c.json(
      {
        shop: shopView(shop),
        services: services.map((s) => serviceView(s, shop)),
        slots: slots.map((slot) => slotView(slot, shop.timeZone)),
      },
      200,
    );
  });
}
