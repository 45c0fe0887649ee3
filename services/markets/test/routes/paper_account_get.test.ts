import { json, jsonOf, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { PortfolioSchema } from "../../src/routes/paper_account_get.ts";
import { bearer, jsonBody, marketsApp, openAccount, openMarkets } from "../harness.ts";

const market = openMarkets()[40]!;

describe("GET /pm/paper/account", () => {
  describe("success", () => {
    test("shows a new account's balance, no positions and equity equal to the balance", async ({ db }) => {
      const app = marketsApp(db);
      const { id, token } = await openAccount(app);
      const body = await jsonOf(await app.request("/pm/paper/account", bearer(token)), PortfolioSchema);
      expect(body.account).toMatchObject({ id, balance: "10000" });
      expect(body.positions).toEqual([]);
      expect(body.totals).toEqual({
        marketValue: "0",
        unrealisedPnl: "0",
        realisedPnl: "0",
        equity: "10000",
      });
    });

    test("values positions at the displayed price with average price and unrealised P&L", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const tokenId = market.clobTokenIds[0];
      const placed = await json(
        await app.request("/pm/paper/orders", jsonBody({ tokenId, side: "buy", shares: "20" }, token)),
      );
      const body = await jsonOf(await app.request("/pm/paper/account", bearer(token)), PortfolioSchema);
      expect(body.positions).toHaveLength(1);
      const [position] = body.positions;
      if (!position) throw new Error("The account shows no position.");
      expect(position).toMatchObject({
        tokenId,
        conditionId: market.conditionId,
        question: market.question,
        outcome: market.outcomes[0],
        shares: "20",
        costBasis: placed.order.notional,
        averagePrice: placed.order.averagePrice,
        status: "open",
      });
      const event = await json(await app.request(`/pm/event?ref=${market.conditionId}`));
      const view = event.markets.find((candidate: { id: string }) => candidate.id === market.id);
      expect(position.currentPrice).toBe(view.parsedOutcomes[0].price);
      expect(Number(position.marketValue)).toBeCloseTo(20 * Number(position.currentPrice), 6);
      expect(Number(body.totals.equity)).toBeCloseTo(
        Number(body.account.balance) + Number(position.marketValue),
        6,
      );
    });
  });

  describe("errors", () => {
    test("answers 401 without a token", async ({ db }) => {
      const res = await marketsApp(db).request("/pm/paper/account");
      expect(res.status).toBe(401);
      expect((await json(res)).error).toBe("UNAUTHORIZED");
    });
  });

  describe("security", () => {
    test("shows each token only its own account", async ({ db }) => {
      const app = marketsApp(db);
      const first = await openAccount(app);
      const second = await openAccount(app);
      expect((await json(await app.request("/pm/paper/account", bearer(first.token)))).account.id).toBe(
        first.id,
      );
      expect((await json(await app.request("/pm/paper/account", bearer(second.token)))).account.id).toBe(
        second.id,
      );
    });

    test("refuses a wrong token, a bare token without the Bearer scheme and the operator token", async ({
      db,
    }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      for (const authorization of [
        `Bearer ${token}x`,
        token,
        "Basic abc",
        "Bearer operator-token-for-tests-0123456789abcdef",
      ]) {
        const res = await app.request("/pm/paper/account", { headers: { authorization } });
        expect(res.status, authorization).toBe(401);
      }
    });
  });
});
