import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import {
  bearer,
  closedMarket,
  jsonBody,
  marketsApp,
  OPERATOR_TOKEN,
  openAccount,
  openMarkets,
} from "../harness.ts";

const markets = openMarkets()
  .filter((market) => market.book.bids.length >= 3 && market.book.asks.length >= 3)
  .slice(40);
const resolve = (conditionId: string, winningOutcome: string, token = OPERATOR_TOKEN) =>
  [`/pm/paper/markets/${conditionId}/resolve`, jsonBody({ winningOutcome }, token)] as const;

describe("POST /pm/paper/markets/{conditionId}/resolve", () => {
  describe("success", () => {
    test("pays 1 USD per winning share, nothing to losers, and closes the market", async ({ db }) => {
      const app = marketsApp(db);
      const market = markets[0]!;
      const winner = await openAccount(app);
      const loser = await openAccount(app);
      const yes = await json(
        await app.request(
          "/pm/paper/orders",
          jsonBody({ tokenId: market.clobTokenIds[0], side: "buy", shares: "30" }, winner.token),
        ),
      );
      await app.request(
        "/pm/paper/orders",
        jsonBody({ tokenId: market.clobTokenIds[1], side: "buy", shares: "12" }, loser.token),
      );
      const res = await app.request(...resolve(market.conditionId, market.outcomes[0]));
      expect(res.status).toBe(200);
      expect(await json(res)).toMatchObject({
        conditionId: market.conditionId,
        winningOutcome: market.outcomes[0],
        winningTokenId: market.clobTokenIds[0],
        payout: "30",
        positionsSettled: 2,
      });
      const won = await json(await app.request("/pm/paper/account", bearer(winner.token)));
      expect(won.positions[0]).toMatchObject({ shares: "0", status: "resolved", currentPrice: "1" });
      expect(Number(won.account.balance)).toBeCloseTo(10_000 - Number(yes.order.notional) + 30, 6);
      expect(Number(won.positions[0].realisedPnl)).toBeCloseTo(30 - Number(yes.order.notional), 6);
      const lost = await json(await app.request("/pm/paper/account", bearer(loser.token)));
      expect(lost.positions[0]).toMatchObject({ shares: "0", status: "resolved", currentPrice: "0" });
      const event = await json(await app.request(`/pm/event?ref=${market.conditionId}`));
      const view = event.markets.find((candidate: { id: string }) => candidate.id === market.id);
      expect(view).toMatchObject({ closed: true, acceptingOrders: false, outcomePrices: '["1","0"]' });
    });

    test("then refuses new orders on the market", async ({ db }) => {
      const app = marketsApp(db);
      const market = markets[1]!;
      await app.request(...resolve(market.conditionId, market.outcomes[1]));
      const { token } = await openAccount(app);
      const res = await app.request(
        "/pm/paper/orders",
        jsonBody({ tokenId: market.clobTokenIds[0], side: "buy", amount: "5" }, token),
      );
      expect(res.status).toBe(409);
      expect((await json(res)).error).toBe("MARKET_CLOSED");
    });
  });

  describe("errors", () => {
    test("refuses to resolve a market twice", async ({ db }) => {
      const app = marketsApp(db);
      const market = markets[2]!;
      expect((await app.request(...resolve(market.conditionId, "yes"))).status).toBe(200);
      const again = await app.request(...resolve(market.conditionId, "No"));
      expect(again.status).toBe(409);
      expect((await json(again)).error).toBe("MARKET_ALREADY_RESOLVED");
      const seededClosed = await app.request(...resolve(closedMarket().conditionId, "Yes"));
      expect((await json(seededClosed)).error).toBe("MARKET_ALREADY_RESOLVED");
    });

    test("refuses an outcome the market does not have, an unknown market and a malformed id", async ({
      db,
    }) => {
      const app = marketsApp(db);
      const wrongOutcome = await app.request(...resolve(markets[3]!.conditionId, "Maybe"));
      expect(wrongOutcome.status).toBe(400);
      expect(await json(wrongOutcome)).toMatchObject({
        error: "INVALID_OUTCOME",
        outcomes: markets[3]!.outcomes,
      });
      const unknown = await app.request(...resolve(`0x${"0".repeat(64)}`, "Yes"));
      expect(unknown.status).toBe(404);
      expect((await json(unknown)).error).toBe("MARKET_NOT_FOUND");
      const malformed = await app.request(...resolve("0x12", "Yes"));
      expect(malformed.status).toBe(400);
      expect((await json(malformed)).error).toBe("VALIDATION_FAILED");
    });
  });

  describe("security", () => {
    test("needs the operator token; an account token is not enough", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      for (const used of [token, "wrong", ""]) {
        const [path, init] = resolve(markets[4]!.conditionId, "Yes", used);
        const res = await app.request(path, init);
        expect(res.status).toBe(401);
      }
      const [path, init] = resolve(markets[4]!.conditionId, "Yes");
      expect((await app.request(path, init)).status).toBe(200);
    });

    test("is disabled when no operator token is configured", async ({ db }) => {
      const app = marketsApp(db, { operatorToken: null });
      const res = await app.request(...resolve(markets[5]!.conditionId, "Yes"));
      expect(res.status).toBe(403);
      expect((await json(res)).error).toBe("FORBIDDEN");
    });
  });
});
