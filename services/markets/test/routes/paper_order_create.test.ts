import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { bearer, closedMarket, jsonBody, marketsApp, openAccount, openMarkets } from "../harness.ts";

/** Each test trades its own market, so books do not carry over between tests of this file. */
const markets = openMarkets().filter(
  (market) => market.book.asks.length >= 3 && market.book.bids.length >= 3,
);
const order = (token: string, body: Record<string, unknown>) => jsonBody(body, token);

describe("POST /pm/paper/orders", () => {
  describe("success", () => {
    test("buys by USD amount, walking the asks and moving the price up", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const market = markets[0]!;
      const tokenId = market.clobTokenIds[0];
      const bookBefore = await json(await app.request(`/pm/book?token_id=${tokenId}`));
      const depth = bookBefore.asks
        .slice(-2)
        .reduce(
          (sum: number, level: { price: string; size: string }) =>
            sum + Number(level.price) * Number(level.size),
          0,
        );
      const amount = (Math.floor(depth) + 1).toFixed(2);
      const res = await app.request("/pm/paper/orders", order(token, { tokenId, side: "buy", amount }));
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.order.status).toBe("filled");
      expect(body.order.fills.length).toBeGreaterThanOrEqual(3);
      expect(body.order.bestPrice).toBe(bookBefore.asks.at(-1).price);
      expect(Number(body.order.slippage)).toBeGreaterThan(0);
      expect(Number(body.order.notional)).toBeLessThanOrEqual(Number(amount));
      expect(Number(body.market.priceAfter)).toBeGreaterThan(Number(body.market.priceBefore));
      const bookAfter = await json(await app.request(`/pm/book?token_id=${tokenId}`));
      expect(Number(bookAfter.asks.at(-1).price)).toBeGreaterThan(Number(bookBefore.asks.at(-1).price));
      expect(bookAfter.last_trade_price).toBe(body.order.worstPrice);
    });

    test("buys shares then sells them, realising P&L exactly", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const tokenId = markets[1]!.clobTokenIds[0];
      const bought = await json(
        await app.request("/pm/paper/orders", order(token, { tokenId, side: "buy", shares: "10.5" })),
      );
      expect(bought.order.filledShares).toBe("10.5");
      expect(bought.position).toMatchObject({
        shares: "10.5",
        costBasis: bought.order.notional,
        status: "open",
      });
      const sold = await json(
        await app.request("/pm/paper/orders", order(token, { tokenId, side: "sell", shares: "10.5" })),
      );
      expect(sold.order.side).toBe("sell");
      expect(sold.position.shares).toBe("0");
      const toMicro = (text: string) => {
        const [whole, fraction = ""] = text.replace("-", "").split(".");
        const value = BigInt(whole!) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
        return text.startsWith("-") ? -value : value;
      };
      expect(toMicro(sold.position.realisedPnl)).toBe(
        toMicro(sold.order.notional) - toMicro(bought.order.notional),
      );
      expect(toMicro(sold.balance)).toBe(10_000_000_000n + toMicro(sold.position.realisedPnl));
    });

    test("buys the second outcome against the first outcome's bids", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const market = markets[2]!;
      const yesBefore = await json(await app.request(`/pm/book?token_id=${market.clobTokenIds[0]}`));
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId: market.clobTokenIds[1], side: "buy", shares: "1" }),
      );
      const body = await json(res);
      expect(body.order.outcome).toBe(market.outcomes[1]);
      expect((1 - Number(body.order.bestPrice)).toFixed(2)).toBe(
        Number(yesBefore.bids.at(-1).price).toFixed(2),
      );
    });

    test("fills part of an order stopped by its limit price", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const tokenId = markets[3]!.clobTokenIds[0];
      const book = await json(await app.request(`/pm/book?token_id=${tokenId}`));
      const best = book.asks.at(-1);
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId, side: "buy", shares: "100000", limitPrice: best.price }),
      );
      const body = await json(res);
      expect(body.order.status).toBe("partially_filled");
      expect(body.order.filledShares).toBe(best.size);
    });
  });

  describe("errors", () => {
    test("refuses a closed market with 409 MARKET_CLOSED", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId: closedMarket().clobTokenIds[0], side: "buy", amount: "5" }),
      );
      expect(res.status).toBe(409);
      expect((await json(res)).error).toBe("MARKET_CLOSED");
    });

    test("refuses to spend more than the balance with 409 INSUFFICIENT_FUNDS and changes nothing", async ({
      db,
    }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const tokenId = markets[4]!.clobTokenIds[0];
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId, side: "buy", amount: "10000.01" }),
      );
      expect(res.status).toBe(409);
      expect(await json(res)).toMatchObject({ error: "INSUFFICIENT_FUNDS", balance: "10000" });
      const account = await json(await app.request("/pm/paper/account", bearer(token)));
      expect(account.account.balance).toBe("10000");
      expect(account.positions).toEqual([]);
    });

    test("refuses to sell shares not held with 409 INSUFFICIENT_SHARES", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId: markets[4]!.clobTokenIds[0], side: "sell", shares: "1" }),
      );
      expect(res.status).toBe(409);
      expect((await json(res)).error).toBe("INSUFFICIENT_SHARES");
    });

    test("refuses an order the limit price keeps from filling at all with 409 NO_LIQUIDITY", async ({
      db,
    }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId: markets[4]!.clobTokenIds[0], side: "buy", shares: "1", limitPrice: "0.01" }),
      );
      expect(res.status).toBe(409);
      expect((await json(res)).error).toBe("NO_LIQUIDITY");
    });

    test("refuses invalid orders with 400", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const tokenId = markets[4]!.clobTokenIds[0];
      const cases: [Record<string, unknown>, string][] = [
        [{ tokenId, side: "buy" }, "INVALID_ORDER"],
        [{ tokenId, side: "buy", amount: "5", shares: "1" }, "INVALID_ORDER"],
        [{ tokenId, side: "sell", amount: "5" }, "INVALID_ORDER"],
        [{ tokenId, side: "buy", shares: "0.001" }, "INVALID_ORDER"],
        [{ tokenId, side: "buy", amount: "0" }, "INVALID_ORDER"],
        [{ tokenId, side: "buy", amount: "5", limitPrice: "1.5" }, "INVALID_ORDER"],
        [{ tokenId, side: "buy", amount: "-5" }, "VALIDATION_FAILED"],
        [{ tokenId, side: "buy", amount: "1e3" }, "VALIDATION_FAILED"],
        [{ tokenId, side: "hold", amount: "5" }, "VALIDATION_FAILED"],
        [{ tokenId: "abc", side: "buy", amount: "5" }, "VALIDATION_FAILED"],
      ];
      for (const [body, code] of cases) {
        const res = await app.request("/pm/paper/orders", order(token, body));
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await json(res)).error, JSON.stringify(body)).toBe(code);
      }
    });

    test("answers 404 TOKEN_NOT_FOUND for an unknown token", async ({ db }) => {
      const app = marketsApp(db);
      const { token } = await openAccount(app);
      const res = await app.request(
        "/pm/paper/orders",
        order(token, { tokenId: "7".repeat(77), side: "buy", amount: "5" }),
      );
      expect(res.status).toBe(404);
      expect((await json(res)).error).toBe("TOKEN_NOT_FOUND");
    });
  });

  describe("security", () => {
    test("refuses an order without a valid account token", async ({ db }) => {
      const app = marketsApp(db);
      const body = { tokenId: markets[5]!.clobTokenIds[0], side: "buy", amount: "5" };
      for (const init of [jsonBody(body), order("pmk_not-a-real-token", body)]) {
        const res = await app.request("/pm/paper/orders", init);
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toContain("Bearer");
        expect(JSON.stringify(await json(res))).not.toContain("pmk_not-a-real-token");
      }
    });

    test("never lets concurrent orders on one account overspend its balance", async ({ db }) => {
      const app = marketsApp(db);
      const { id, token } = await openAccount(app);
      const targets = markets.slice(6, 26);
      const results = await Promise.all(
        targets.map((market) =>
          app.request(
            "/pm/paper/orders",
            order(token, { tokenId: market.clobTokenIds[0], side: "buy", amount: "1500" }),
          ),
        ),
      );
      const statuses = results.map((res) => res.status);
      expect(statuses.every((status) => status === 200 || status === 409)).toBe(true);
      const [row] = await db.query<{ balance: string; spent: string; orders: string }>(
        `SELECT a.balance_micro::text AS balance,
                (SELECT coalesce(sum(notional_micro), 0)::text FROM markets.orders WHERE account_id = a.id) AS spent,
                (SELECT count(*)::text FROM markets.orders WHERE account_id = a.id) AS orders
         FROM markets.accounts a WHERE a.id = $1`,
        [id],
      );
      expect(BigInt(row!.balance) >= 0n).toBe(true);
      expect(BigInt(row!.balance) + BigInt(row!.spent)).toBe(10_000_000_000n);
      expect(Number(row!.orders)).toBe(statuses.filter((status) => status === 200).length);
      expect(Number(row!.orders)).toBeLessThanOrEqual(Math.floor(10_000 / 1_400));
    });

    test("keeps concurrent orders on one market consistent with its book", async ({ db }) => {
      const app = marketsApp(db);
      const market = markets[30]!;
      const tokenId = market.clobTokenIds[0];
      const accounts = await Promise.all(Array.from({ length: 6 }, () => openAccount(app)));
      const before = market.book.asks.reduce((sum, level) => sum + level.sharesMicro, 0n);
      await Promise.all(
        accounts.map(({ token }) =>
          app.request("/pm/paper/orders", order(token, { tokenId, side: "buy", shares: "50" })),
        ),
      );
      const [row] = await db.query<{ asks: { shares: string }[] }>(
        "SELECT asks FROM markets.books WHERE condition_id = $1",
        [market.conditionId],
      );
      const left = row!.asks.reduce((sum, level) => sum + BigInt(level.shares), 0n);
      const [bought] = await db.query<{ total: string }>(
        "SELECT sum(filled_shares_micro)::text AS total FROM markets.orders WHERE token_id = $1",
        [tokenId],
      );
      expect(left + BigInt(bought!.total)).toBe(before);
    });
  });
});
