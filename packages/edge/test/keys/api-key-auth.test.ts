import { ApiError, createRoute, createServiceApp, jsonResponse, type ServiceApp, z } from "@app/core";
import { fakeClock, json, silentLogger } from "@app/testkit";
import { describe, expect, test } from "vitest";
import { type ApiKeyAuthOptions, apiKeyAuth } from "../../src/keys/api-key-auth.ts";
import { InMemoryApiKeyStore } from "../../src/keys/api-key-store.fake.ts";
import type { VerifiedApiKey } from "../../src/keys/api-key-store.ts";
import { MemoryFixedWindow } from "../../src/rate-limit/memory-fixed-window.ts";

type Caller = VerifiedApiKey;

const MESSAGES = { missing: "Send your key in the x-test-key header.", invalid: "This key is not valid." };

/** An app with one route behind `apiKeyAuth(options)`, answering the caller the handler sees. */
function appWith(options: ApiKeyAuthOptions<Caller>): ServiceApp {
  const app = createServiceApp({
    name: "t",
    title: "t",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => undefined,
  });
  const route = createRoute({
    method: "post",
    path: "/things",
    middleware: apiKeyAuth(options),
    request: {
      body: { required: true, content: { "application/json": { schema: z.object({ name: z.string() }) } } },
    },
    responses: { 200: jsonResponse(z.object({ owner: z.string(), name: z.string() }), "The caller's thing") },
  });
  app.openapi(route, (c) => c.json({ owner: c.var.caller.ownerId, name: c.req.valid("json").name }, 200));
  return app;
}

function post(app: ServiceApp, headers: Record<string, string>, body = '{"name":"a"}'): Promise<Response> {
  return Promise.resolve(
    app.request("/things", {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body,
    }),
  );
}

async function keysOf(owners: { ownerId: string; scopes?: string[] }[]) {
  const store = new InMemoryApiKeyStore("tk");
  const keys = [];
  for (const owner of owners) keys.push((await store.issue(owner)).key);
  return { store, keys };
}

describe("a key in a header of its own", () => {
  test("the caller whose key is valid reaches the handler as c.var.caller", async () => {
    const { store, keys } = await keysOf([{ ownerId: "shop_1" }]);
    const app = appWith({
      source: { header: "x-test-key" },
      verify: (key) => store.verify(key),
      messages: MESSAGES,
    });
    const res = await post(app, { "x-test-key": keys[0] as string });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ owner: "shop_1", name: "a" });
  });

  test("no key, an empty, unknown or overlong key are each a 401 in the service's words", async () => {
    const { store, keys } = await keysOf([{ ownerId: "shop_1" }]);
    const looked: string[] = [];
    const app = appWith({
      source: { header: "x-test-key" },
      verify: (key) => {
        looked.push(key);
        return store.verify(key);
      },
      messages: MESSAGES,
    });
    for (const [headers, message] of [
      [{}, MESSAGES.missing],
      [{ "x-test-key": "" }, MESSAGES.missing],
      [{ "x-test-key": `${keys[0]}x` }, MESSAGES.invalid],
      [{ "x-test-key": "k".repeat(5000) }, MESSAGES.invalid],
    ] as const) {
      const res = await post(app, headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBeNull();
      expect(await json(res)).toEqual({ error: "UNAUTHORIZED", message });
    }
    expect(looked).toEqual([`${keys[0]}x`]);
  });

  test("the key is checked before the body is read: a bad body without a key is a 401", async () => {
    const { store, keys } = await keysOf([{ ownerId: "shop_1" }]);
    const app = appWith({
      source: { header: "x-test-key" },
      verify: (key) => store.verify(key),
      messages: MESSAGES,
    });
    expect((await post(app, {}, "{not json")).status).toBe(401);
    expect((await post(app, {}, '{"name":1}')).status).toBe(401);
    expect((await post(app, { "x-test-key": keys[0] as string }, '{"name":1}')).status).toBe(400);
  });
});

describe("a key as a bearer token", () => {
  const source = { bearer: { realm: "test" } };

  test("`Authorization: Bearer <key>` is accepted, whatever the scheme's case", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }]);
    const app = appWith({ source, verify: (key) => store.verify(key), messages: MESSAGES });
    for (const scheme of ["Bearer", "bearer"]) {
      expect((await post(app, { authorization: `${scheme} ${keys[0]}` })).status).toBe(200);
    }
  });

  test("every 401 carries the realm's challenge; a malformed header is a missing key", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }]);
    const app = appWith({ source, verify: (key) => store.verify(key), messages: MESSAGES });
    for (const [authorization, message] of [
      [undefined, MESSAGES.missing],
      ["Bearer", MESSAGES.missing],
      [`Basic ${keys[0]}`, MESSAGES.missing],
      [`Bearer ${keys[0]} extra`, MESSAGES.missing],
      ["Bearer tk_unknown", MESSAGES.invalid],
    ] as const) {
      const res = await post(app, authorization === undefined ? {} : { authorization });
      expect(res.status, authorization).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe('Bearer realm="test"');
      expect((await json(res)).message).toBe(message);
    }
  });
});

describe("a rate limit counted per key", () => {
  const rateLimited = (store: InMemoryApiKeyStore, clock = fakeClock("2026-06-15T06:00:15Z")) =>
    appWith({
      source: { header: "x-test-key" },
      verify: (key) => store.verify(key),
      messages: MESSAGES,
      rateLimit: {
        limiter: new MemoryFixedWindow({ limit: 2, windowSeconds: 60 }, clock),
        subject: (caller) => caller.keyId,
        message: (decision, rule) =>
          `This key may make ${decision.limit} requests per ${rule.windowSeconds} seconds; try again in ${decision.retryAfterSeconds} s.`,
      },
    });

  test("a request within the limit answers with the RateLimit headers", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }]);
    const app = rateLimited(store);
    const res = await post(app, { "x-test-key": keys[0] as string });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-limit")).toBe("2");
    expect(res.headers.get("ratelimit-remaining")).toBe("1");
    expect(res.headers.get("ratelimit-reset")).toBe("60");
  });

  test("past the limit the key gets the one 429, in the service's words; other keys go on", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }, { ownerId: "acct_1" }]);
    const app = rateLimited(store);
    const key = { "x-test-key": keys[0] as string };
    for (let n = 0; n < 2; n += 1) expect((await post(app, key)).status).toBe(200);
    const refused = await post(app, key);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("60");
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(await json(refused)).toEqual({
      error: "RATE_LIMITED",
      message: "This key may make 2 requests per 60 seconds; try again in 60 s.",
      limit: 2,
      windowSeconds: 60,
      retryAfterSeconds: 60,
    });
    expect((await post(app, { "x-test-key": keys[1] as string })).status).toBe(200);
  });

  test("a request without a valid key is refused before it is counted", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }]);
    const app = rateLimited(store);
    for (let n = 0; n < 5; n += 1)
      expect((await post(app, { "x-test-key": `${keys[0]}x` })).status).toBe(401);
    expect((await post(app, { "x-test-key": keys[0] as string })).status).toBe(200);
  });

  test("a caller with a limiter of its own (limiterOf) is counted by it, the others by the limiter", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_slow" }, { ownerId: "acct_1" }]);
    const clock = fakeClock("2026-06-15T06:00:15Z");
    const slowLimiter = new MemoryFixedWindow({ limit: 1, windowSeconds: 60 }, clock);
    const app = appWith({
      source: { header: "x-test-key" },
      verify: (key) => store.verify(key),
      messages: MESSAGES,
      rateLimit: {
        limiter: new MemoryFixedWindow({ limit: 3, windowSeconds: 60 }, clock),
        limiterOf: (caller) => (caller.ownerId === "acct_slow" ? slowLimiter : undefined),
        subject: (caller) => caller.keyId,
        message: (decision, rule) => `${decision.limit} per ${rule.windowSeconds} s`,
      },
    });
    const slow = { "x-test-key": keys[0] as string };
    expect((await post(app, slow)).headers.get("ratelimit-limit")).toBe("1");
    const refused = await post(app, slow);
    expect(refused.status).toBe(429);
    expect((await json(refused)).message).toBe("1 per 60 s");
    for (let n = 0; n < 3; n += 1)
      expect((await post(app, { "x-test-key": keys[1] as string })).status).toBe(200);
  });
});

describe("a scope the route needs", () => {
  const scoped = (store: InMemoryApiKeyStore, refusal?: (missing: string) => ApiError) =>
    appWith({
      source: { header: "x-test-key" },
      verify: (key) => store.verify(key),
      messages: MESSAGES,
      scope: { required: "things:write", held: (caller) => caller.scopes, refusal },
      rateLimit: {
        limiter: new MemoryFixedWindow({ limit: 1, windowSeconds: 60 }, fakeClock()),
        subject: (caller) => caller.keyId,
        message: () => "Slow down.",
      },
    });

  test("a key without it is a 403 naming it; a key with it passes", async () => {
    const { store, keys } = await keysOf([
      { ownerId: "acct_1", scopes: ["things:read"] },
      { ownerId: "acct_1", scopes: ["things:read", "things:write"] },
    ]);
    const app = scoped(store);
    const refused = await post(app, { "x-test-key": keys[0] as string });
    expect(refused.status).toBe(403);
    expect(await json(refused)).toEqual({
      error: "FORBIDDEN",
      message: "This operation needs a key with the scope things:write.",
      requiredScope: "things:write",
    });
    expect((await post(app, { "x-test-key": keys[1] as string })).status).toBe(200);
  });

  test("the service's own refusal is used when it gives one", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }]);
    const app = scoped(
      store,
      (missing) => new ApiError("BAD_REQUEST", `No ${missing} here.`, { scope: missing }),
    );
    const res = await post(app, { "x-test-key": keys[0] as string });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({
      error: "BAD_REQUEST",
      message: "No things:write here.",
      scope: "things:write",
    });
  });

  test("the limit is counted before the scope is checked: a key over it is a 429 whatever its scopes", async () => {
    const { store, keys } = await keysOf([{ ownerId: "acct_1" }]);
    const app = scoped(store);
    expect((await post(app, { "x-test-key": keys[0] as string })).status).toBe(403);
    expect((await post(app, { "x-test-key": keys[0] as string })).status).toBe(429);
  });
});
