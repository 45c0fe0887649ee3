import type { Database } from "@app/db";
import { type CliCommand, type CliOptions, CliUsageError, requiredOption } from "@app/runtime";
import { isLocalDate, isTimeZone } from "../domain/calendar.ts";
import { isCurrency, toMinorUnits } from "../domain/money.ts";
import { formatWeeklyHours, parseWeeklyHours } from "../domain/opening-hours.ts";
import { ShopKeys } from "../store/keys.ts";
import { createService, listServices } from "../store/services.ts";
import {
  addClosure,
  createShop,
  findShop,
  listShops,
  readClosures,
  readHours,
  removeClosure,
  replaceHours,
  type Shop,
} from "../store/shops.ts";

function checked(value: string, valid: boolean, problem: string): string {
  if (!valid) throw new CliUsageError(problem);
  return value;
}

function wholeNumber(text: string, name: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < min || value > max) {
    throw new CliUsageError(`--${name} must be a whole number from ${min} to ${max}.`);
  }
  return value;
}

function name(options: CliOptions): string {
  const value = requiredOption(options, "name");
  return checked(value, value.length <= 100, "--name has at most 100 characters.");
}

async function shopOf(db: Database, options: CliOptions): Promise<Shop> {
  const id = requiredOption(options, "shop");
  const shop = await findShop(db, id);
  if (!shop) throw new CliUsageError(`There is no shop ${id}.`);
  return shop;
}

const date = (options: CliOptions) =>
  checked(
    requiredOption(options, "date"),
    isLocalDate(options.date?.trim() ?? ""),
    "--date must be a date YYYY-MM-DD.",
  );

/** Every command of `npm run shop --`, by its two words. */
export const COMMANDS: Record<string, CliCommand> = {
  "shops create": {
    options: ["name", "time-zone", "currency", "hours"],
    help: 'a shop; --hours like "mon-fri 09:00-18:00; sat 10:00-14:00" (days not named are closed)',
    run: async ({ db, options }) => {
      const timeZone = requiredOption(options, "time-zone");
      const currency = requiredOption(options, "currency").toUpperCase();
      const shop = await createShop(db, {
        name: name(options),
        timeZone: checked(
          timeZone,
          isTimeZone(timeZone),
          `--time-zone ${timeZone} is not an IANA time zone.`,
        ),
        currency: checked(currency, isCurrency(currency), `--currency ${currency} is not an ISO 4217 code.`),
        hours: parseWeeklyHours(requiredOption(options, "hours")),
      });
      return { shop };
    },
  },
  "shops list": { options: [], help: "every shop", run: async ({ db }) => ({ shops: await listShops(db) }) },
  "shops show": {
    options: ["shop"],
    help: "a shop with its hours, closures, services and keys (never the keys themselves)",
    run: async ({ db, options }) => {
      const shop = await shopOf(db, options);
      return {
        shop,
        hours: formatWeeklyHours(await readHours(db, shop.id)),
        closures: await readClosures(db, shop.id),
        services: await listServices(db, shop.id),
        keys: await new ShopKeys(db).list(shop.id),
      };
    },
  },
  "hours set": {
    options: ["shop", "hours"],
    help: "replaces the shop's weekly hours",
    run: async ({ db, options }) => {
      const shop = await shopOf(db, options);
      const hours = parseWeeklyHours(requiredOption(options, "hours"));
      await replaceHours(db, shop.id, hours);
      return { shop: shop.id, hours: formatWeeklyHours(hours) };
    },
  },
  "closures add": {
    options: ["shop", "date", "reason?"],
    help: "closes the shop for a whole local day",
    run: async ({ db, options }) => {
      const shop = await shopOf(db, options);
      const closure = { date: date(options), reason: options.reason?.trim() || null };
      await addClosure(db, shop.id, closure);
      return { shop: shop.id, closure };
    },
  },
  "closures remove": {
    options: ["shop", "date"],
    help: "reopens a closed day",
    run: async ({ db, options }) => {
      const shop = await shopOf(db, options);
      const day = date(options);
      if (!(await removeClosure(db, shop.id, day)))
        throw new CliUsageError(`The shop is not closed on ${day}.`);
      return { shop: shop.id, reopened: day };
    },
  },
  "services create": {
    options: ["shop", "name", "duration", "price", "capacity?"],
    help: "a service: --duration in minutes (5-720), --price a decimal in the shop's currency, --capacity (1-100, default 1)",
    run: async ({ db, options }) => {
      const shop = await shopOf(db, options);
      const service = await createService(db, {
        shopId: shop.id,
        name: name(options),
        durationMinutes: wholeNumber(requiredOption(options, "duration"), "duration", 5, 720),
        priceMinor: toMinorUnits(requiredOption(options, "price"), shop.currency),
        capacity: wholeNumber(options.capacity?.trim() || "1", "capacity", 1, 100),
      });
      return { service };
    },
  },
  "keys create": {
    options: ["shop", "label?"],
    help: "a shop API key, printed once: only its SHA-256 hash is stored",
    run: async ({ db, options }) => {
      const shop = await shopOf(db, options);
      const issued = await new ShopKeys(db).issue(shop.id, options.label?.trim() ?? "");
      return { ...issued, note: "Shown once: store it now. Send it as the x-shop-key header." };
    },
  },
  "keys list": {
    options: ["shop"],
    help: "a shop's keys: ids, labels, dates (never the keys)",
    run: async ({ db, options }) => ({ keys: await new ShopKeys(db).list((await shopOf(db, options)).id) }),
  },
  "keys revoke": {
    options: ["key"],
    help: "revokes a key by its id (key_…); requests with it get 401 from then on",
    run: async ({ db, clock, options }) => {
      const keyId = requiredOption(options, "key");
      if (!(await new ShopKeys(db).revoke(keyId, clock.now()))) {
        throw new CliUsageError(`There is no active key ${keyId}.`);
      }
      return { revoked: keyId };
    },
  },
};
