import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { EventSchema } from "../../src/routes/schemas.ts";
import { catalogue, marketsApp } from "../harness.ts";

const negRisk = catalogue.events.find((event) => event.negRisk && !event.closed)!;
const market = negRisk.markets.find((candidate) => !candidate.closed)!;
const get = (app: ReturnType<typeof marketsApp>, ref: string) =>
  app.request(`/pm/event?ref=${encodeURIComponent(ref)}`);

describe("GET /pm/event", () => {
  describe("success", () => {
    test("resolves every kind of ref to the same full event", async ({ db }) => {
      const app = marketsApp(db);
      for (const ref of [
        `https://polymarket.com/event/${negRisk.slug}`,
        `https://polymarket.com/event/${negRisk.slug}/${market.slug}`,
        `https://polymarket.com/fr/market/${market.slug}?tid=1#top`,
        negRisk.slug,
        market.slug,
        negRisk.id,
        market.id,
        market.conditionId,
        market.clobTokenIds[1],
      ]) {
        const res = await get(app, ref);
        expect(res.status, ref).toBe(200);
        expect((await json(res)).id, ref).toBe(negRisk.id);
      }
    });

    test("returns every market with Gamma's field types and the parsed outcomes", async ({ db }) => {
      const body = await jsonOf(await get(marketsApp(db), negRisk.slug), EventSchema);
      expect(body.markets).toHaveLength(negRisk.markets.length);
      expect(typeof body.volume).toBe("number");
      expect(typeof body.liquidity).toBe("number");
      expect(typeof body.openInterest).toBe("number");
      expect(body.negRisk).toBe(true);
      const first = body.markets.find((candidate) => candidate.id === market.id);
      if (!first) throw new Error(`The event lists no market ${market.id}.`);
      expect(typeof first.volume).toBe("string");
      expect(typeof first.liquidity).toBe("string");
      expect(first.groupItemTitle).toBe(market.groupItemTitle);
      expect(JSON.parse(first.outcomes)).toEqual(["Yes", "No"]);
      expect(JSON.parse(first.clobTokenIds)).toEqual(market.clobTokenIds);
      const prices = JSON.parse(first.outcomePrices) as string[];
      expect(first.parsedOutcomes).toEqual([
        {
          name: "Yes",
          price: prices[0],
          probability: Number(prices[0]),
          tokenId: market.clobTokenIds[0],
          winner: null,
        },
        {
          name: "No",
          price: prices[1],
          probability: Number(prices[1]),
          tokenId: market.clobTokenIds[1],
          winner: null,
        },
      ]);
      expect(Number(prices[0]) + Number(prices[1])).toBeCloseTo(1, 10);
    });

    test("shows resolved markets as closed with prices of one and zero", async ({ db }) => {
      const closedEvent = catalogue.events.find((event) => event.closed && event.markets.length > 1)!;
      const body = await jsonOf(await get(marketsApp(db), closedEvent.slug), EventSchema);
      expect(body.closed).toBe(true);
      for (const view of body.markets) {
        expect(view.closed).toBe(true);
        expect(view.acceptingOrders).toBe(false);
        expect(['["1","0"]', '["0","1"]']).toContain(view.outcomePrices);
      }
    });

    test("shows team names as outcomes where a market has them", async ({ db }) => {
      const match = catalogue.events.find((event) => event.markets[0]?.outcomes[0] !== "Yes")!;
      const body = await json(await get(marketsApp(db), match.slug));
      expect(body.markets[0].parsedOutcomes.map((outcome: { name: string }) => outcome.name)).toEqual(
        match.markets[0]!.outcomes,
      );
    });
  });

  describe("errors", () => {
    test("answers 404 EVENT_NOT_FOUND when nothing matches", async ({ db }) => {
      const app = marketsApp(db);
      for (const ref of ["no-such-event", "1", `0x${"0".repeat(64)}`, "1".repeat(77)]) {
        const res = await get(app, ref);
        expect(res.status, ref).toBe(404);
        expect((await json(res)).error).toBe("EVENT_NOT_FOUND");
      }
    });

    test("answers 400 VALIDATION_FAILED for a missing, empty, too long or non-printable ref", async ({
      db,
    }) => {
      const app = marketsApp(db);
      for (const path of [
        "/pm/event",
        "/pm/event?ref=",
        `/pm/event?ref=${"a".repeat(513)}`,
        "/pm/event?ref=a%00b",
      ]) {
        const res = await app.request(path);
        expect(res.status, path).toBe(400);
        const body = await json(res);
        expect(body.error).toBe("VALIDATION_FAILED");
        expect(body.issues[0].path).toBe("ref");
      }
    });

    test("answers 400 INVALID_REF for a malformed ref", async ({ db }) => {
      const app = marketsApp(db);
      for (const ref of [
        "0x1234",
        "https://example.com/event/x",
        "https://polymarket.com/profile/x",
        "two words",
      ]) {
        const res = await get(app, ref);
        expect(res.status, ref).toBe(400);
        expect((await json(res)).error).toBe("INVALID_REF");
      }
    });
  });

  describe("security", () => {
    test("needs no key and treats injection attempts as malformed refs", async ({ db }) => {
      const res = await get(marketsApp(db), "x' OR '1'='1");
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("INVALID_REF");
    });

    test("does not echo the ref back in the error body", async ({ db }) => {
      const body = await json(await get(marketsApp(db), "<script>alert(1)</script>"));
      expect(JSON.stringify(body)).not.toContain("<script>");
    });
  });
});
