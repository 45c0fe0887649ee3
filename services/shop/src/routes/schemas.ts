import { z } from "@app/core";
import { formatInZone } from "../domain/calendar.ts";
import { toPrice } from "../domain/money.ts";
import type { Slot } from "../domain/slots.ts";
import type { Service } from "../store/services.ts";
import type { Shop } from "../store/shops.ts";

export const PriceSchema = z
  .object({
    amount: z
      .string()
      .openapi({ example: "25.00", description: "Decimal string in the currency's minor digits" }),
    currency: z.string().openapi({ example: "EUR", description: "ISO 4217 code" }),
  })
  .openapi("Price");

export const ShopSchema = z
  .object({
    id: z.string().openapi({ example: "shop_demo_barber" }),
    name: z.string(),
    timeZone: z.string().openapi({ example: "Europe/Berlin", description: "IANA time zone" }),
    currency: z.string().openapi({ example: "EUR" }),
  })
  .openapi("Shop");

export const ServiceSchema = z
  .object({
    id: z.string().openapi({ example: "svc_demo_haircut", description: "The `service` to ask slots for" }),
    name: z.string(),
    durationMinutes: z.number().int(),
    price: PriceSchema,
    capacity: z.number().int().openapi({ description: "Places per slot: the largest `partySize` accepted" }),
  })
  .openapi("ShopService");

export const SlotSchema = z
  .object({
    start: z.string().openapi({ example: "2026-03-30T09:00:00+02:00", description: "ISO 8601, shop offset" }),
    end: z.string().openapi({ example: "2026-03-30T09:30:00+02:00" }),
    capacityLeft: z.number().int().openapi({ description: "Places still free, at least `partySize`" }),
  })
  .openapi("Slot");

export function shopView(shop: Shop) {
  return { id: shop.id, name: shop.name, timeZone: shop.timeZone, currency: shop.currency };
}

export function serviceView(service: Service, shop: Shop) {
  return {
    id: service.id,
    name: service.name,
    durationMinutes: service.durationMinutes,
    price: toPrice(service.priceMinor, shop.currency),
    capacity: service.capacity,
  };
}

export function slotView(slot: Slot, timeZone: string) {
  return {
    start: formatInZone(slot.start, timeZone),
    end: formatInZone(slot.end, timeZone),
    capacityLeft: slot.capacityLeft,
  };
}
