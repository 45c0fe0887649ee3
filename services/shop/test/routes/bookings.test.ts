import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { ShopKeys } from "../../src/store/keys.ts";
import { addClosure } from "../../src/store/shops.ts";
import { availabilityPath, fakeClock, getWithKey, postWithKey, seedShop, shopApp } from "../support.ts";

// Monday 15 June 2026, 08:00 in Berlin; the shop opens 09:00-17:00 every day.
const MONDAY_MORNING = "2026-06-15T06:00:00Z";
const NINE = "2026-06-15T09:00:00+02:00";

const SERVICES = [
  { name: "Haircut", durationMinutes: 30, priceMinor: 2800, capacity: 2 },
  { name: "Shave class", durationMinutes: 60, priceMinor: 4500, capacity: 6 },
];

const book = (app: ReturnType<typeof shopApp>, key: string | undefined, body: unknown) =>
  postWithKey(app, "/api/shops/bookings", key, body);

async function bookingsAt(db: Parameters<typeof seedShop>[0], serviceId: string, start: string) {
  const [row] = await db.query<{ count: number; places: number | null }>(
    `SELECT count(*)::int AS count, sum(party_size)::int AS places FROM shop.bookings
     WHERE service_id = $1 AND starts_at = $2`,
    [serviceId, new Date(start)],
  );
  return { count: row?.count ?? 0, places: row?.places ?? 0 };
}

async function placesBooked(db: Parameters<typeof seedShop>[0], serviceId: string): Promise<number> {
  const [row] = await db.query<{ places: number | null }>(
    "SELECT sum(party_size)::int AS places FROM shop.bookings WHERE service_id = $1",
    [serviceId],
  );
  return row?.places ?? 0;
}

describe("POST /api/shops/bookings: success", () => {
  test("an open slot is booked, and the booking is answered in the shop's offset", async ({ db }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[0]?.id as string;
    const res = await book(app, key, { service, start: NINE, partySize: 1, name: "Ada" });
    expect(res.status).toBe(201);
    const { booking } = await json(res);
    expect(booking).toEqual({
      id: expect.stringMatching(/^bkg_/),
      service,
      start: NINE,
      end: "2026-06-15T09:30:00+02:00",
      partySize: 1,
      name: "Ada",
      createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 1, places: 1 });
  });

  test("a start written in UTC names the same slot; partySize defaults to 1 and name to null", async ({
    db,
  }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await book(app, key, { service: services[0]?.id, start: "2026-06-15T07:00:00Z" });
    expect(res.status).toBe(201);
    expect((await json(res)).booking).toMatchObject({ start: NINE, partySize: 1, name: null });
  });

  test("a party takes its size out of the slot, which closes when it is full", async ({ db }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[1]?.id as string;
    expect((await book(app, key, { service, start: NINE, partySize: 4 })).status).toBe(201);
    expect((await book(app, key, { service, start: NINE, partySize: 3 })).status).toBe(409);
    expect((await book(app, key, { service, start: NINE, partySize: 2 })).status).toBe(201);
    const slots = (await json(await getWithKey(app, availabilityPath({ service, days: 1 }), key))).slots;
    expect(slots[0].start).toBe("2026-06-15T10:00:00+02:00");
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 2, places: 6 });
  });
});

describe("POST /api/shops/bookings: errors", () => {
  test.for<[string, Record<string, unknown>, string]>([
    ["a missing service", { service: undefined, start: NINE }, "service"],
    ["a start without an offset", { start: "2026-06-15T09:00:00" }, "start"],
    ["a start that is not a time", { start: "soon" }, "start"],
    ["a partySize of 0", { start: NINE, partySize: 0 }, "partySize"],
    ["a partySize with a fraction", { start: NINE, partySize: 1.5 }, "partySize"],
    ["a partySize sent as text", { start: NINE, partySize: "1" }, "partySize"],
    ["a blank name", { start: NINE, name: "  " }, "name"],
    ["a name over 100 characters", { start: NINE, name: "n".repeat(101) }, "name"],
  ])("%s is a 400 VALIDATION_FAILED naming the field", async ([, body, path], { db }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await book(app, key, { service: services[0]?.id, ...body });
    expect(res.status).toBe(400);
    const answer = await json(res);
    expect(answer.error).toBe("VALIDATION_FAILED");
    expect(answer.issues.map((issue: { path: string }) => issue.path)).toEqual([path]);
  });

  test("a partySize over the service's capacity is a 400 and books nothing", async ({ db }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[0]?.id as string;
    const res = await book(app, key, { service, start: NINE, partySize: 3 });
    expect(res.status).toBe(400);
    expect((await json(res)).issues).toEqual([
      { path: "partySize", message: "must be at most 2, the service's capacity" },
    ]);
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 0, places: 0 });
  });

  test("a body that is not JSON is a 400 MALFORMED_JSON", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await book(app, key, "{not json");
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("MALFORMED_JSON");
  });

  test("an unknown service is a 404 SERVICE_NOT_FOUND", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await book(app, key, { service: "svc_nope", start: NINE });
    expect(res.status).toBe(404);
    expect((await json(res)).error).toBe("SERVICE_NOT_FOUND");
  });

  test.for<[string, string, string?]>([
    ["a slot that has begun", NINE, "2026-06-15T07:05:00Z"],
    ["a start between two slots", "2026-06-15T09:10:00+02:00"],
    ["a start outside the opening hours", "2026-06-15T17:00:00+02:00"],
    ["a start on a closed day", "2026-06-16T09:00:00+02:00"],
    ["a slot that is full", "2026-06-15T10:00:00+02:00"],
    ["a start at the end of time", "9999-12-31T09:00:00+01:00"],
    ["a start in year zero", "0000-01-03T09:00:00Z"],
  ])("%s is a 409 SLOT_UNAVAILABLE and books nothing", async ([, start, now], { db }) => {
    const { shop, services, key } = await seedShop(db, { services: SERVICES });
    await addClosure(db, shop.id, { date: "2026-06-16", reason: "Inventory" });
    const service = services[0]?.id as string;
    const clock = fakeClock(MONDAY_MORNING);
    const app = shopApp(db, { clock });
    expect((await book(app, key, { service, start: "2026-06-15T10:00:00+02:00", partySize: 2 })).status).toBe(
      201,
    );
    if (now) clock.set(now);
    const res = await book(app, key, { service, start, partySize: 1 });
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ error: "SLOT_UNAVAILABLE", service, start, partySize: 1 });
    expect(await placesBooked(db, service)).toBe(2);
  });

  test("GET on the bookings path is a 405 with Allow: POST", async ({ db }) => {
    const { key } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const res = await getWithKey(app, "/api/shops/bookings", key);
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
  });

  test("the 31st booking request in ten minutes is a 429 RATE_LIMITED with Retry-After", async ({ db }) => {
    const { services, key } = await seedShop(db);
    // 06:02:30 UTC: the ten-minute window started at 06:00 and ends in 450 s.
    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:02:30Z") });
    const service = services[0]?.id as string;
    const open = (await json(await getWithKey(app, availabilityPath({ service, days: 2 }), key))).slots;
    for (const slot of open.slice(0, 30)) {
      expect((await book(app, key, { service, start: slot.start })).status).toBe(201);
    }
    const refused = await book(app, key, { service, start: "2026-06-20T09:00:00+02:00" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("450");
    expect((await json(refused)).error).toBe("RATE_LIMITED");
    expect(await bookingsAt(db, service, "2026-06-20T09:00:00+02:00")).toEqual({ count: 0, places: 0 });
  });
});

describe("POST /api/shops/bookings: concurrency", () => {
  test("twenty parallel bookings of a capacity-2 slot at two instances: exactly two succeed", async ({
    db,
  }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const service = services[0]?.id as string;
    const clock = fakeClock(MONDAY_MORNING);
    const instances = [shopApp(db, { clock }), shopApp(db, { clock })];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        book(instances[i % 2] as ReturnType<typeof shopApp>, key, { service, start: NINE }),
      ),
    );
    const statuses = results.map((res) => res.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(2);
    expect(statuses.filter((status) => status === 409)).toHaveLength(18);
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 2, places: 2 });
  });

  test("parallel parties of four for six places: exactly one fits", async ({ db }) => {
    const { services, key } = await seedShop(db, { services: SERVICES });
    const service = services[1]?.id as string;
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const results = await Promise.all(
      Array.from({ length: 6 }, () => book(app, key, { service, start: NINE, partySize: 4 })),
    );
    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 1, places: 4 });
  });
});

describe("POST /api/shops/bookings: security", () => {
  test("no key, a wrong key and a revoked key are each a 401 and book nothing", async ({ db }) => {
    const { services, key, keyId } = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = services[0]?.id as string;
    expect((await book(app, undefined, { service, start: NINE })).status).toBe(401);
    expect((await book(app, `${key}0`, { service, start: NINE })).status).toBe(401);
    await new ShopKeys(db).revoke(keyId, new Date(MONDAY_MORNING));
    const revoked = await book(app, key, { service, start: NINE });
    expect(revoked.status).toBe(401);
    expect((await json(revoked)).error).toBe("UNAUTHORIZED");
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 0, places: 0 });
  });

  test("the key is checked before the body is read", async ({ db }) => {
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    expect((await book(app, undefined, "{not json")).status).toBe(401);
  });

  test("a key cannot book another shop's service", async ({ db }) => {
    const mine = await seedShop(db);
    const theirs = await seedShop(db);
    const app = shopApp(db, { clock: fakeClock(MONDAY_MORNING) });
    const service = theirs.services[0]?.id as string;
    const res = await book(app, mine.key, { service, start: NINE });
    expect(res.status).toBe(404);
    expect(await bookingsAt(db, service, NINE)).toEqual({ count: 0, places: 0 });
  });
});
