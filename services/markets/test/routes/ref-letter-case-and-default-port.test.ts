import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { catalogue, jsonBody, marketsApp, OPERATOR_TOKEN, openMarkets } from "../harness.ts";

/**
 * The refs the README promises `GET /pm/event` takes, spelled as a user may paste them: a
 * condition id with an upper-case `0X` or hex, `/EVENT/<slug>`, a URL with its scheme's default
 * port. The resolve route takes a condition id in any case too. Other spellings stay 400.
 */
const event = catalogue.events.find((candidate) => candidate.markets.length > 1 && !candidate.closed)!;
const market = event.markets[0]!;
const hex = market.conditionId.slice(2);
const get = (app: ReturnType<typeof marketsApp>, ref: string) =>
  app.request(`/pm/event?ref=${encodeURIComponent(ref)}`);

describe("GET /pm/event with refs in any letter case or with a default port", () => {
  test("resolves an upper-case condition id, /EVENT/ and /MARKET/ URLs and :443 on https", async ({ db }) => {
    const app = marketsApp(db);
    for (const ref of [
      `0X${hex}`,
      `0X${hex.toUpperCase()}`,
      `https://polymarket.com/EVENT/${event.slug}`,
      `https://polymarket.com/Event/${event.slug}/${market.slug}`,
      `https://polymarket.com/MARKET/${market.slug}`,
      `https://polymarket.com:443/event/${event.slug}`,
      `https://www.polymarket.com:443/EVENT/${event.slug}?tid=1`,
      `http://polymarket.com:80/event/${event.slug}`,
    ]) {
      const res = await get(app, ref);
      expect(res.status, ref).toBe(200);
      expect((await json(res)).id, ref).toBe(event.id);
    }
  });

  test("still answers 400 INVALID_REF for other ports and a malformed 0X id", async ({ db }) => {
    const app = marketsApp(db);
    for (const ref of [
      `0X${hex.slice(1)}`,
      `http://polymarket.com:443/event/${event.slug}`,
      `https://polymarket.com:8443/event/${event.slug}`,
      `polymarket.com:443/event/${event.slug}`,
    ]) {
      const res = await get(app, ref);
      expect(res.status, ref).toBe(400);
      expect((await json(res)).error, ref).toBe("INVALID_REF");
    }
  });
});

describe("POST /pm/paper/markets/{conditionId}/resolve with an upper-case condition id", () => {
  test("resolves the market the id names, as in lower case", async ({ db }) => {
    const app = marketsApp(db);
    const open = openMarkets().at(-1)!;
    const res = await app.request(
      `/pm/paper/markets/0X${open.conditionId.slice(2).toUpperCase()}/resolve`,
      jsonBody({ winningOutcome: open.outcomes[0] }, OPERATOR_TOKEN),
    );
    expect(res.status).toBe(200);
    expect((await json(res)).conditionId).toBe(open.conditionId);
  });

  test("still refuses a condition id that is not 0x + 64 hex", async ({ db }) => {
    const app = marketsApp(db);
    const res = await app.request(
      `/pm/paper/markets/0X${"g".repeat(64)}/resolve`,
      jsonBody({ winningOutcome: "Yes" }, OPERATOR_TOKEN),
    );
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("VALIDATION_FAILED");
  });
});
