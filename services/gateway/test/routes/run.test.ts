import { json, jsonOf, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { RunEnvelopeSchema } from "../../src/routes/schemas.ts";
import { balanceOf } from "../../src/store/runs.ts";
import {
  closedPortUrl,
  type FakeServer,
  fakePublisher,
  fakeShop,
  oversizeUpstream,
  silentUpstream,
  startServer,
} from "../support/fake-upstreams.ts";
import {
  bearer,
  fakeClock,
  gatewayHarness,
  type Harness,
  openAccount,
  postJson,
} from "../support/harness.ts";
import { startRealMarkets } from "../support/markets.ts";
import { PRICE_MICRO, PRICED_PROVIDER, pricedRun, pricedUpstream } from "../support/priced.ts";

const SHOP_KEY = "shk_test_shop_key_0123456789";
const API_KEY = "pub_test_api_key_0123456789";

const availability = (queryParams: Record<string, unknown> = {}) => ({
  provider: "shop",
  endpoint: "/api/shops/agent-availability",
  method: "GET",
  input: { queryParams },
});
const listPosts = (queryParams: Record<string, unknown> = {}) => ({
  provider: "publisher",
  endpoint: "/api/v1/posts",
  method: "GET",
  input: { queryParams },
});
const getPost = (id: unknown) => ({
  provider: "publisher",
  endpoint: "/api/v1/posts/{id}",
  method: "GET",
  input: { pathParams: { id } },
});

let shop: FakeServer;
let publisher: FakeServer;
let priced: FakeServer;

beforeAll(async () => {
  [shop, publisher, priced] = await Promise.all([
    fakeShop(SHOP_KEY),
    fakePublisher(API_KEY),
    pricedUpstream(),
  ]);
});
afterAll(async () => {
  await Promise.all([shop.close(), publisher.close(), priced.close()]);
});

function harness(
  db: Parameters<typeof gatewayHarness>[0],
  options: Parameters<typeof gatewayHarness>[1] = {},
) {
  return gatewayHarness(db, {
    urls: { shop: shop.url, publisher: publisher.url, priced: priced.url, ...options.urls },
    extraProviders: [PRICED_PROVIDER],
    ...options,
  });
}

const run = (h: Harness, key: string, body: unknown, headers: Record<string, string> = {}) =>
  postJson(h.app, "/v1/run", body, { ...bearer(key), ...headers });

describe("POST /v1/run", () => {
  describe("success", () => {
    test("runs shop availability with the caller's shop key in x-shop-key and answers the envelope", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const before = shop.seen.length;
      const res = await run(
        h,
        caller.key,
        availability({ service: "svc_cut", from: "2026-06-15", days: "3" }),
        {
          "x-upstream-key": SHOP_KEY,
        },
      );
      expect(res.status).toBe(200);
      const body = await jsonOf(res, RunEnvelopeSchema);
      expect(body).toMatchObject({
        provider: "shop",
        endpoint: "/api/shops/agent-availability",
        method: "GET",
        upstream: { status: 200 },
        cost: { amount: "0", currency: "USD" },
        balance: { amount: "0", currency: "USD" },
      });
      expect(body.runId).toMatch(/^run_/);
      expect(Number.isInteger(body.durationMs)).toBe(true);
      const output = body.output as { slots: unknown[]; echo: unknown };
      expect(output.slots).toHaveLength(1);
      expect(output.echo).toEqual({ service: "svc_cut", from: "2026-06-15", days: "3" });
      const seen = shop.seen.slice(before);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.headers["x-shop-key"]).toBe(SHOP_KEY);
      expect(seen[0]?.headers.authorization).toBeUndefined();
      expect(seen[0]?.headers["x-upstream-key"]).toBeUndefined();
      await h.close();
    });

    test("lists posts with the default page size of 20 and pages on with nextCursor", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const first = await json(await run(h, caller.key, listPosts(), { "x-upstream-key": API_KEY }));
      expect(publisher.seen.at(-1)?.path).toBe("/api/v1/posts?limit=20");
      expect(first.output.posts).toHaveLength(20);
      expect(first.output.nextCursor).toBe("post_06");
      const second = await json(
        await run(
          h,
          caller.key,
          listPosts({ cursor: first.output.nextCursor, status: "published", limit: 100 }),
          {
            "x-upstream-key": API_KEY,
          },
        ),
      );
      expect(second.upstream.status).toBe(200);
      expect(second.output.nextCursor).toBeNull();
      expect(second.output.posts.every((post: { status: string }) => post.status === "published")).toBe(true);
      await h.close();
    });

    test("gets one post, percent-encoding its id into the path", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const found = await json(await run(h, caller.key, getPost("post_05"), { "x-upstream-key": API_KEY }));
      expect(found.output).toMatchObject({ id: "post_05", targets: [{ platform: "bluesky" }] });
      const spaced = await json(await run(h, caller.key, getPost("a b+é"), { "x-upstream-key": API_KEY }));
      expect(publisher.seen.at(-1)?.path).toBe("/api/v1/posts/a%20b%2B%C3%A9");
      expect(spaced.upstream.status).toBe(404);
      await h.close();
    });

    test("lists connections", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const body = await json(
        await run(
          h,
          caller.key,
          { provider: "publisher", endpoint: "/api/v1/connections", method: "get" },
          {
            "x-upstream-key": API_KEY,
          },
        ),
      );
      expect(body.method).toBe("GET");
      expect(body.output.connections[0]).toMatchObject({ id: "conn_1", platform: "bluesky" });
      await h.close();
    });

    test("looks up a prediction-market event on the real markets service, with no key", async ({ db }) => {
      const markets = await startRealMarkets(db);
      const h = harness(db, { urls: { markets: markets.url } });
      const caller = await openAccount(db);
      const res = await run(h, caller.key, {
        provider: "markets",
        endpoint: "/pm/event",
        method: "GET",
        input: { queryParams: { ref: markets.sampleRefs.url } },
      });
      const body = await json(res);
      expect(body.upstream.status).toBe(200);
      expect(body.output.markets.length).toBeGreaterThan(1);
      expect(body.output.markets[0].parsedOutcomes[0]).toHaveProperty("probability");
      const missing = await json(
        await run(h, caller.key, {
          provider: "markets",
          endpoint: "/pm/event",
          method: "GET",
          input: { queryParams: { ref: "no-such-event-anywhere" } },
        }),
      );
      expect(missing.upstream.status).toBe(404);
      expect(missing.output.error).toBe("EVENT_NOT_FOUND");
      await h.close();
      await markets.close();
    });

    test("passes an upstream refusal through inside a 200 envelope", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const res = await run(h, caller.key, availability(), { "x-upstream-key": "shk_wrong_key" });
      expect(res.status).toBe(200);
      const body = await json(res);
      expect(body.upstream.status).toBe(401);
      expect(body.output.error).toBe("UNAUTHORIZED");
      await h.close();
    });

    test("takes the upstream key from the body when no header carries it, and prefers the header", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const fromBody = await json(await run(h, caller.key, { ...availability(), upstreamKey: SHOP_KEY }));
      expect(fromBody.upstream.status).toBe(200);
      const both = await json(
        await run(
          h,
          caller.key,
          { ...availability(), upstreamKey: "shk_wrong_key" },
          { "x-upstream-key": SHOP_KEY },
        ),
      );
      expect(both.upstream.status).toBe(200);
      await h.close();
    });

    test("does not follow an upstream's redirect", async ({ db }) => {
      const elsewhere = await startServer((_req, res) => res.end("{}"));
      const redirecting = await startServer((_req, res) => {
        res.writeHead(302, { location: `${elsewhere.url.href}pm/event?ref=x` });
        res.end();
      });
      const h = harness(db, { urls: { markets: redirecting.url } });
      const caller = await openAccount(db);
      const body = await json(
        await run(h, caller.key, {
          provider: "markets",
          endpoint: "/pm/event",
          method: "GET",
          input: { queryParams: { ref: "x" } },
        }),
      );
      expect(body.upstream.status).toBe(302);
      expect(body.output).toBeNull();
      expect(elsewhere.seen).toHaveLength(0);
      await Promise.all([h.close(), elsewhere.close(), redirecting.close()]);
    });

    test("writes a usage record and a ledger row for every run", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const body = await json(await run(h, caller.key, availability(), { "x-upstream-key": SHOP_KEY }));
      // A free run's rows are written just after it answers, with the next batch (at most 100 ms).
      await h.deps.usage.flush();
      const [record] = await db.query<{ outcome: string; upstream_status: number; provider: string }>(
        "SELECT outcome, upstream_status, provider FROM gateway.runs WHERE id = $1",
        [body.runId],
      );
      expect(record).toEqual({ outcome: "completed", upstream_status: 200, provider: "shop" });
      const ledger = await db.query<{ kind: string; amount_micro: number }>(
        "SELECT kind, amount_micro FROM gateway.ledger WHERE run_id = $1",
        [body.runId],
      );
      expect(ledger).toEqual([{ kind: "run", amount_micro: 0 }]);
      await h.close();
    });

    test("charges a priced tool and shows the cost and the balance left", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db, 1_000_000n);
      const body = await json(await run(h, caller.key, pricedRun()));
      expect(body.cost).toEqual({ amount: "0.25", currency: "USD" });
      expect(body.balance).toEqual({ amount: "0.75", currency: "USD" });
      const refunded = await json(await run(h, caller.key, pricedRun("503")));
      expect(refunded.upstream.status).toBe(503);
      expect(refunded.cost.amount).toBe("0");
      expect(refunded.balance.amount).toBe("0.75");
      await h.deps.held.flush(); // priced runs are settled behind their answers
      expect(await balanceOf(db, caller.accountId)).toBe(750_000n);
      await h.close();
    });

    test("replays the stored envelope for a retry with the same Idempotency-Key, neither re-run nor re-charged", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db, 1_000_000n);
      const before = priced.seen.length;
      const headers = { "idempotency-key": "retry-me-1" };
      const first = await run(h, caller.key, pricedRun(), headers);
      const second = await run(h, caller.key, pricedRun(), headers);
      expect(second.status).toBe(200);
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      expect(await json(second)).toEqual(await json(first));
      expect(priced.seen.length - before).toBe(1);
      expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n - PRICE_MICRO);
      const other = await openAccount(db, 1_000_000n);
      expect((await run(h, other.key, pricedRun(), headers)).headers.get("idempotent-replayed")).toBeNull();
      await h.close();
    });
  });

  describe("errors", () => {
    test("answers 400 INVALID_INPUT with issues when the input does not match the tool's schema", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const cases: [unknown, string][] = [
        [listPosts({ limit: 0 }), "input.queryParams.limit"],
        [listPosts({ limit: 101 }), "input.queryParams.limit"],
        [listPosts({ status: "deleted" }), "input.queryParams.status"],
        [listPosts({ sort: "asc" }), "input.queryParams"],
        [availability({ days: "seven" }), "input.queryParams.days"],
        [availability({ from: "15/06/2026" }), "input.queryParams.from"],
        [{ provider: "markets", endpoint: "/pm/event", method: "GET", input: {} }, "input.queryParams.ref"],
        [{ ...getPost("x"), input: {} }, "input.pathParams.id"],
        [{ ...listPosts(), input: { body: {} } }, "input"],
        [{ ...listPosts(), inputs: {} }, ""],
        [{ endpoint: "/api/v1/posts", method: "GET" }, "provider"],
      ];
      const before = publisher.seen.length;
      for (const [body, path] of cases) {
        const res = await run(h, caller.key, body, { "x-upstream-key": API_KEY });
        expect(res.status, JSON.stringify(body)).toBe(400);
        const error = await json(res);
        expect(error.error).toBe("INVALID_INPUT");
        expect(error.issues.map((issue: { path: string }) => issue.path)).toContain(path);
      }
      expect(publisher.seen.length).toBe(before);
      await h.close();
    });

    test("never answers 500 to a body that is not a run request", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      for (const body of [null, [], "run", 42, { provider: 1, endpoint: [], method: {} }, { input: "x" }]) {
        const res = await run(h, caller.key, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect((await json(res)).error).toBe("INVALID_INPUT");
      }
      const malformed = await h.app.request("/v1/run", {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(caller.key) },
        body: "{not json",
      });
      expect(malformed.status).toBe(400);
      expect((await json(malformed)).error).toBe("MALFORMED_JSON");
      await h.close();
    });

    test("answers 400 UPSTREAM_KEY_REQUIRED and calls nothing when a tool's upstream key is missing", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const before = shop.seen.length;
      const res = await run(h, caller.key, availability());
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("UPSTREAM_KEY_REQUIRED");
      expect(shop.seen.length).toBe(before);
      await h.close();
    });

    test("answers 404 TOOL_NOT_FOUND for an unknown provider, endpoint or method, listing the tools", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      for (const body of [
        { provider: "nobody", endpoint: "/pm/event", method: "GET" },
        { provider: "markets", endpoint: "/pm/paper/accounts", method: "GET" },
        { provider: "markets", endpoint: "/pm/event", method: "POST" },
        { provider: "publisher", endpoint: "/api/v1/posts/post_05", method: "GET" },
        { provider: "markets", endpoint: "http://127.0.0.1:1/pm/event", method: "GET" },
      ]) {
        const res = await run(h, caller.key, body);
        expect(res.status, JSON.stringify(body)).toBe(404);
        const error = await json(res);
        expect(error.error).toBe("TOOL_NOT_FOUND");
        expect(error.tools.length).toBeGreaterThan(0);
      }
      await h.close();
    });

    test("answers 402 INSUFFICIENT_BALANCE when a priced tool costs more than the balance", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db, PRICE_MICRO - 1n);
      const before = priced.seen.length;
      const res = await run(h, caller.key, pricedRun());
      expect(res.status).toBe(402);
      expect(await json(res)).toMatchObject({
        error: "INSUFFICIENT_BALANCE",
        price: { amount: "0.25", currency: "USD" },
        balance: { amount: "0.249999", currency: "USD" },
      });
      expect(priced.seen.length).toBe(before);
      expect(await balanceOf(db, caller.accountId)).toBe(PRICE_MICRO - 1n);
      await h.close();
    });

    test("answers 429 RATE_LIMITED with Retry-After once the key's bucket is empty, and runs again after", async ({
      db,
    }) => {
      const clock = fakeClock();
      const h = harness(db, { runsPerMinute: 3, clock });
      const caller = await openAccount(db);
      const other = await openAccount(db);
      const call = (key: string) => run(h, key, availability(), { "x-upstream-key": SHOP_KEY });
      const first = await call(caller.key);
      expect(first.status).toBe(200);
      expect(first.headers.get("ratelimit-limit")).toBe("3");
      expect(first.headers.get("ratelimit-remaining")).toBe("2");
      for (let i = 0; i < 2; i += 1) expect((await call(caller.key)).status).toBe(200);
      const limited = await call(caller.key);
      expect(limited.status).toBe(429);
      expect(limited.headers.get("retry-after")).toBe("20");
      expect(limited.headers.get("ratelimit-remaining")).toBe("0");
      expect(await json(limited)).toMatchObject({ error: "RATE_LIMITED", retryAfterSeconds: 20 });
      expect((await call(other.key)).status).toBe(200);
      clock.advance(19_000);
      expect((await call(caller.key)).status).toBe(429);
      clock.advance(1_000);
      expect((await call(caller.key)).status).toBe(200);
      await h.close();
    });

    test("answers 502 UPSTREAM_UNAVAILABLE when the upstream cannot be reached, and refunds the price", async ({
      db,
    }) => {
      const h = harness(db, { urls: { priced: await closedPortUrl() } });
      const caller = await openAccount(db, PRICE_MICRO);
      const res = await run(h, caller.key, pricedRun());
      expect(res.status).toBe(502);
      expect((await json(res)).error).toBe("UPSTREAM_UNAVAILABLE");
      await h.deps.held.flush(); // priced runs are settled behind their answers
      expect(await balanceOf(db, caller.accountId)).toBe(PRICE_MICRO);
      const [record] = await db.query<{ outcome: string }>(
        "SELECT outcome FROM gateway.runs WHERE account_id = $1",
        [caller.accountId],
      );
      expect(record?.outcome).toBe("upstream_unavailable");
      await h.close();
    });

    test("answers 504 UPSTREAM_TIMEOUT when the upstream does not answer in time", async ({ db }) => {
      const silent = await silentUpstream();
      const h = harness(db, { urls: { shop: silent.url }, limits: { timeoutMs: 300 } });
      const caller = await openAccount(db);
      const res = await run(h, caller.key, availability(), { "x-upstream-key": SHOP_KEY });
      expect(res.status).toBe(504);
      expect((await json(res)).error).toBe("UPSTREAM_TIMEOUT");
      expect(silent.seen).toHaveLength(1);
      await Promise.all([h.close(), silent.close()]);
    });

    test("answers 502 UPSTREAM_RESPONSE_TOO_LARGE for an answer over the cap, announced or streamed", async ({
      db,
    }) => {
      for (const chunked of [false, true]) {
        const big = await oversizeUpstream(4096, chunked);
        const h = harness(db, { urls: { markets: big.url }, limits: { maxResponseBytes: 1024 } });
        const caller = await openAccount(db);
        const res = await run(h, caller.key, {
          provider: "markets",
          endpoint: "/pm/event",
          method: "GET",
          input: { queryParams: { ref: "x" } },
        });
        expect(res.status, `chunked: ${chunked}`).toBe(502);
        expect((await json(res)).error).toBe("UPSTREAM_RESPONSE_TOO_LARGE");
        await Promise.all([h.close(), big.close()]);
      }
    });

    test("answers 422 when an Idempotency-Key comes back with a different request", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db, 1_000_000n);
      const headers = { "idempotency-key": "reused-key" };
      expect((await run(h, caller.key, pricedRun(), headers)).status).toBe(200);
      const res = await run(h, caller.key, pricedRun("201"), headers);
      expect(res.status).toBe(422);
      expect((await json(res)).error).toBe("IDEMPOTENCY_KEY_REUSED");
      expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n - PRICE_MICRO);
      await h.close();
    });
    test("answers 409 REQUEST_IN_PROGRESS to a retry that arrives while the first run is still running", async ({
      db,
    }) => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      const slow = await startServer((_req, res) => {
        void gate.then(() => res.end("{}"));
      });
      const h = harness(db, { urls: { markets: slow.url } });
      const caller = await openAccount(db);
      const body = {
        provider: "markets",
        endpoint: "/pm/event",
        method: "GET",
        input: { queryParams: { ref: "x" } },
      };
      const headers = { "idempotency-key": "in-flight" };
      const first = run(h, caller.key, body, headers);
      while (slow.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const second = await run(h, caller.key, body, headers);
      expect(second.status).toBe(409);
      expect((await json(second)).error).toBe("REQUEST_IN_PROGRESS");
      expect(second.headers.get("retry-after")).toBe("1");
      release();
      expect((await first).status).toBe(200);
      expect((await run(h, caller.key, body, headers)).headers.get("idempotent-replayed")).toBe("true");
      expect(slow.seen).toHaveLength(1);
      await Promise.all([h.close(), slow.close()]);
    });
  });

  describe("a malformed Idempotency-Key", () => {
    test("is the platform's 400 VALIDATION_FAILED naming the header, and nothing runs or is charged", async ({
      db,
    }) => {
      const h = harness(db);
      const caller = await openAccount(db, 1_000_000n);
      const before = priced.seen.length;
      for (const key of ["x".repeat(256), "two words", '"unterminated', '""']) {
        const res = await run(h, caller.key, pricedRun(), { "idempotency-key": key });
        expect(res.status, key).toBe(400);
        const body = await json(res);
        expect(body.error).toBe("VALIDATION_FAILED");
        expect(body.issues.map((issue: { path: string }) => issue.path)).toEqual(["Idempotency-Key"]);
      }
      expect(priced.seen.length).toBe(before);
      expect(await balanceOf(db, caller.accountId)).toBe(1_000_000n);
      await h.close();
    });
  });

  describe("security", () => {
    test("answers 401 to a missing, unknown or revoked gateway key, calling nothing", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      await h.deps.accounts.revokeKey(caller.keyId, new Date());
      const before = shop.seen.length;
      for (const headers of [
        {},
        bearer("gwk_not_a_key"),
        bearer(caller.key),
        { authorization: caller.key },
      ]) {
        const res = await postJson(h.app, "/v1/run", availability(), {
          ...headers,
          "x-upstream-key": SHOP_KEY,
        });
        expect(res.status).toBe(401);
        expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
        expect((await json(res)).error).toBe("UNAUTHORIZED");
      }
      expect(shop.seen.length).toBe(before);
      await h.close();
    });

    test("refuses path parameters that would leave their segment, and calls nothing", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db);
      const before = publisher.seen.length;
      for (const id of [
        "..",
        ".",
        "../connections",
        "a/b",
        "a\\b",
        "%2e%2e",
        "..%2Fconnections",
        "%252F",
        "x?admin=1",
        "x#frag",
        "a\u0000b",
        "line\nbreak",
      ]) {
        const res = await run(h, caller.key, getPost(id), { "x-upstream-key": API_KEY });
        expect(res.status, id).toBe(400);
        const error = await json(res);
        expect(error.error).toBe("INVALID_INPUT");
        expect(error.issues[0].path).toBe("input.pathParams.id");
      }
      expect(publisher.seen.length).toBe(before);
      await h.close();
    });

    test("sends no upstream key to a tool that needs none", async ({ db }) => {
      const echo = await startServer((_req, res) => res.end("{}"));
      const h = harness(db, { urls: { markets: echo.url } });
      const caller = await openAccount(db);
      await run(
        h,
        caller.key,
        { provider: "markets", endpoint: "/pm/event", method: "GET", input: { queryParams: { ref: "x" } } },
        { "x-upstream-key": SHOP_KEY },
      );
      expect(echo.seen).toHaveLength(1);
      expect(JSON.stringify(echo.seen[0]?.headers)).not.toContain(SHOP_KEY);
      expect(JSON.stringify(echo.seen[0]?.headers)).not.toContain(caller.key);
      await Promise.all([h.close(), echo.close()]);
    });

    test("concurrent runs of a priced tool never take the balance below zero", async ({ db }) => {
      const h = harness(db);
      const caller = await openAccount(db, PRICE_MICRO * 5n);
      const answers = await Promise.all(Array.from({ length: 20 }, () => run(h, caller.key, pricedRun())));
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses.filter((status) => status === 200)).toHaveLength(5);
      expect(statuses.filter((status) => status === 402)).toHaveLength(15);
      await h.deps.held.flush(); // priced runs are settled behind their answers
      expect(await balanceOf(db, caller.accountId)).toBe(0n);
      const [sums] = await db.query<{ charged: string; runs: number }>(
        `SELECT COALESCE(sum(amount_micro), 0)::text AS charged, count(*)::int AS runs
         FROM gateway.ledger WHERE account_id = $1 AND kind = 'run'`,
        [caller.accountId],
      );
      expect(sums).toEqual({ charged: (-PRICE_MICRO * 5n).toString(), runs: 5 });
      await h.close();
    });
  });
});
