import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { closedMarket, marketsApp, openMarkets } from "../harness.ts";

const market = openMarkets()[3]!;

describe("GET /pm/book", () => {
  describe("success", () => {
    test("returns the token's book in the CLOB shape, best prices last", async ({ db }) => {
      const res = await marketsApp(db).request(`/pm/book?token_id=${market.clobTokenIds[0]}`);
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.market).toBe(market.conditionId);
      expect(body.asset_id).toBe(market.clobTokenIds[0]);
      expect(body.tick_size).toBe("0.01");
      const bids = body.bids.map((level: { price: string }) => Number(level.price));
      const asks = body.asks.map((level: { price: string }) => Number(level.price));
      expect(bids).toEqual([...bids].sort((a, b) => a - b));
      expect(asks).toEqual([...asks].sort((a, b) => b - a));
      for (const level of [...body.bids, ...body.asks]) expect(level.price).toMatch(/^0\.\d{1,2}$/);
    });

    test("shows the second outcome's book as the mirror of the first", async ({ db }) => {
      const app = marketsApp(db);
      const yes = await json(await app.request(`/pm/book?token_id=${market.clobTokenIds[0]}`));
      const no = await json(await app.request(`/pm/book?token_id=${market.clobTokenIds[1]}`));
      expect(no.asks.map((level: { price: string }) => (1 - Number(level.price)).toFixed(2))).toEqual(
        yes.bids.map((level: { price: string }) => Number(level.price).toFixed(2)),
      );
    });

    test("shows an empty, closed book for a resolved market", async ({ db }) => {
      const body = await json(
        await marketsApp(db).request(`/pm/book?token_id=${closedMarket().clobTokenIds[0]}`),
      );
      expect(body).toMatchObject({ bids: [], asks: [], closed: true });
    });
  });

  describe("errors", () => {
    test("answers 404 TOKEN_NOT_FOUND for an unknown token", async ({ db }) => {
      const res = await marketsApp(db).request(`/pm/book?token_id=${"1".repeat(77)}`);
      expect(res.status).toBe(404);
      expect((await json(res)).error).toBe("TOKEN_NOT_FOUND");
    });

    test("answers 400 VALIDATION_FAILED for a token id that is not digits", async ({ db }) => {
      const res = await marketsApp(db).request("/pm/book?token_id=abc");
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("VALIDATION_FAILED");
    });
  });

  describe("security", () => {
    test("is readable without a key", async ({ db }) => {
      expect((await marketsApp(db).request(`/pm/book?token_id=${market.clobTokenIds[1]}`)).status).toBe(200);
    });
  });
});
