import type { Database } from "@app/db";
import { test } from "@app/testkit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect, vi } from "vitest";
import { AccountStore } from "../../src/store/accounts.ts";
import { KeyPolicyStore } from "../../src/store/key-policies.ts";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import type { UpstreamResponse } from "../../src/upstream/client.ts";
import { bearer, openAccount, postJson } from "../support/harness.ts";
import { connectMcp } from "../support/mcp-client.ts";
import { PRICE_MICRO, PRICED_PROVIDER, pricedRun } from "../support/priced.ts";
import { serveGateway } from "../support/served.ts";

const SHOP_KEY = "shk_idempotent_mcp_key_0123456789";
const SHOP_RUN = { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET", input: {} };

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: unknown;
  isError?: boolean;
};
type Args = Record<string, unknown>;

/** The three ways the official client calls `run`: plain (the direct path), with `onprogress` or `_meta` (the SDK's). */
const WAYS = {
  plain: (client: Client, args: Args) => client.callTool({ name: "run", arguments: args }),
  onprogress: (client: Client, args: Args) =>
    client.callTool({ name: "run", arguments: args }, undefined, { onprogress: () => undefined }),
  meta: (client: Client, args: Args) =>
    client.callTool({ name: "run", arguments: args, _meta: { trace: "t-1" } }),
};

/** A run through one way: its text, that text parsed, and whether it is an error. */
async function run(way: keyof typeof WAYS, client: Client, args: Args) {
  const result = (await WAYS[way](client, args)) as ToolResult;
  const text = result.content[0]?.text ?? "";
  return { text, isError: result.isError === true, structured: result.structuredContent };
}

/** An upstream whose every answer differs (`{call: n}`), so a second run would show. */
function countingUpstream(): FakeUpstreamClient {
  let calls = 0;
  return new FakeUpstreamClient(() => jsonAnswer(200, { call: ++calls }));
}

async function ledgerOf(db: Database, accountId: string) {
  const rows = await db.query<{ kind: string; amount_micro: string }>(
    "SELECT kind, amount_micro::text FROM gateway.ledger WHERE account_id = $1 AND kind <> 'credit' ORDER BY id",
    [accountId],
  );
  return rows.map((row) => `${row.kind} ${row.amount_micro}`);
}

describe("an MCP run with an idempotencyKey", () => {
  test("retried with its key answers the stored result byte for byte on every path, run and charged once", async ({
    db,
  }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    // First by the direct path, then by the SDK's; each retried by all three ways.
    for (const first of ["plain", "meta"] as const) {
      const args = { ...pricedRun(), idempotencyKey: `priced-${first}` };
      const original = await run(first, client, args);
      expect(original.isError, original.text).toBe(false);
      expect(original.structured).toEqual(JSON.parse(original.text));
      for (const retry of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
        const again = await run(retry, client, args);
        expect(again.isError, `${first} then ${retry}`).toBe(false);
        expect(again.text, `${first} then ${retry}`).toBe(original.text);
        expect(again.structured).toEqual(original.structured);
      }
    }
    expect(upstream.requests).toHaveLength(2);
    expect(await ledgerOf(db, caller.accountId)).toEqual(Array(2).fill("run -250000"));
    await client.close();
    await gateway.close();
  });

  test("shares the stored result with a run over HTTP with the same Idempotency-Key, either first", async ({
    db,
  }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));

    const overHttp = await postJson(gateway.app, "/v1/run", pricedRun(), {
      ...bearer(caller.key),
      "idempotency-key": "http-first",
    });
    expect(overHttp.status).toBe(200);
    const httpText = await overHttp.text();
    for (const way of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
      const replayed = await run(way, client, { ...pricedRun(), idempotencyKey: "http-first" });
      expect(replayed.isError, way).toBe(false);
      expect(replayed.text, way).toBe(httpText);
    }

    // The key in the header's Structured Field form is the same key as the bare one.
    const overMcp = await run("plain", client, { ...pricedRun(), idempotencyKey: "mcp-first" });
    expect(overMcp.isError).toBe(false);
    const replayedOverHttp = await postJson(gateway.app, "/v1/run", pricedRun(), {
      ...bearer(caller.key),
      "idempotency-key": '"mcp-first"',
    });
    expect(replayedOverHttp.status).toBe(200);
    expect(replayedOverHttp.headers.get("idempotent-replayed")).toBe("true");
    expect(await replayedOverHttp.text()).toBe(overMcp.text);
    const quoted = await run("meta", client, { ...pricedRun(), idempotencyKey: '"mcp-first"' });
    expect(quoted.text).toBe(overMcp.text);

    expect(upstream.requests).toHaveLength(2);
    expect(await ledgerOf(db, caller.accountId)).toEqual(Array(2).fill("run -250000"));
    await client.close();
    await gateway.close();
  });

  test("is bound to the upstream key that fetched it, as over HTTP", async ({ db }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream });
    const caller = await openAccount(db);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const withHeader = await connectMcp(gateway.url, { ...bearer(caller.key), "x-upstream-key": SHOP_KEY });
    const overHttp = await postJson(gateway.app, "/v1/run", SHOP_RUN, {
      ...bearer(caller.key),
      "idempotency-key": "shop-read",
      "x-upstream-key": SHOP_KEY,
    });
    expect(overHttp.status).toBe(200);
    const httpText = await overHttp.text();
    const keyed = { ...SHOP_RUN, idempotencyKey: "shop-read" };
    expect((await run("plain", client, { ...keyed, upstreamKey: SHOP_KEY })).text).toBe(httpText);
    expect((await run("meta", withHeader, keyed)).text).toBe(httpText);
    for (const other of [{ upstreamKey: "shk_wrong_key_0123456789" }, {}]) {
      for (const way of ["plain", "meta"] as const) {
        const refused = await run(way, client, { ...keyed, ...other });
        expect(refused.isError, way).toBe(true);
        expect(JSON.parse(refused.text).error).toBe("IDEMPOTENCY_KEY_REUSED");
        expect(refused.text).not.toContain('"call"');
      }
    }
    expect(upstream.requests).toHaveLength(1);
    await Promise.all([client.close(), withHeader.close()]);
    await gateway.close();
  });

  test("of a tool outside the key's allowlist replays nothing another key of the account stored", async ({
    db,
  }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream });
    const account = await openAccount(db);
    const limited = await new AccountStore(db).issueKey(account.accountId, "limited");
    await new KeyPolicyStore(db).change(limited.id, { allow: ["markets /pm/event GET"] });
    const keyed = { ...SHOP_RUN, upstreamKey: SHOP_KEY, idempotencyKey: "shop-of-the-account" };
    const full = await connectMcp(gateway.url, bearer(account.key));
    const stored = await run("plain", full, keyed);
    expect(stored.isError).toBe(false);
    const client = await connectMcp(gateway.url, bearer(limited.key));
    for (const way of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
      const refused = await run(way, client, keyed);
      expect(refused.isError, way).toBe(true);
      expect(JSON.parse(refused.text).error, way).toBe("TOOL_NOT_FOUND");
      expect(refused.text).not.toContain('"call"');
    }
    expect(upstream.requests).toHaveLength(1);
    await Promise.all([full.close(), client.close()]);
    await gateway.close();
  });

  test("used again with another request is refused (IDEMPOTENCY_KEY_REUSED), nothing run", async ({ db }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    expect((await run("plain", client, { ...pricedRun(), idempotencyKey: "once" })).isError).toBe(false);
    const overHttp = await postJson(gateway.app, "/v1/run", pricedRun(), {
      ...bearer(caller.key),
      "idempotency-key": "http-once",
    });
    expect(overHttp.status).toBe(200);
    for (const key of ["once", "http-once"]) {
      for (const way of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
        const refused = await run(way, client, { ...pricedRun("201"), idempotencyKey: key });
        expect(refused.isError, `${key} ${way}`).toBe(true);
        expect(JSON.parse(refused.text)).toEqual({
          error: "IDEMPOTENCY_KEY_REUSED",
          message: "This Idempotency-Key was used with a different request; use a new key for a new request.",
        });
        expect(refused.structured).toEqual(JSON.parse(refused.text));
      }
    }
    expect(upstream.requests).toHaveLength(2);
    expect(await ledgerOf(db, caller.accountId)).toEqual(Array(2).fill("run -250000"));
    await client.close();
    await gateway.close();
  });

  test("still running answers REQUEST_IN_PROGRESS with retry advice, then the stored result", async ({
    db,
  }) => {
    let answer: (response: UpstreamResponse) => void = () => undefined;
    const upstream = new FakeUpstreamClient(
      () =>
        new Promise<UpstreamResponse>((resolve) => {
          answer = resolve;
        }),
    );
    const gateway = await serveGateway(db, { upstream, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const args = { ...pricedRun(), idempotencyKey: "slow" };
    const first = run("plain", client, args);
    await vi.waitFor(() => expect(upstream.requests).toHaveLength(1));
    for (const way of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
      const busy = await run(way, client, args);
      expect(busy.isError, way).toBe(true);
      expect(JSON.parse(busy.text)).toEqual({
        error: "REQUEST_IN_PROGRESS",
        message: "A request with this Idempotency-Key is still running; retry shortly.",
        retryAfterSeconds: 1,
      });
    }
    answer(jsonAnswer(200, { ok: true }));
    const original = await first;
    expect(original.isError).toBe(false);
    expect((await run("meta", client, args)).text).toBe(original.text);
    expect(upstream.requests).toHaveLength(1);
    expect(await ledgerOf(db, caller.accountId)).toEqual(["run -250000"]);
    await client.close();
    await gateway.close();
  });

  test("counts against the key's runs limit on every call, replays included, as over HTTP", async ({
    db,
  }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream, runsPerMinute: 2 });
    const caller = await openAccount(db);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const args = { provider: "markets", endpoint: "/pm/event", input: { queryParams: { ref: "x" } } };
    const keyed = { ...args, idempotencyKey: "limited" };
    expect((await run("plain", client, keyed)).isError).toBe(false);
    expect((await run("meta", client, keyed)).isError).toBe(false);
    const limited = await run("plain", client, keyed);
    expect(limited.isError).toBe(true);
    expect(JSON.parse(limited.text)).toMatchObject({ error: "RATE_LIMITED" });
    expect(upstream.requests).toHaveLength(1);
    await client.close();
    await gateway.close();
  });

  test("that is malformed is invalid params (-32602) naming idempotencyKey, and nothing runs", async ({
    db,
  }) => {
    const upstream = countingUpstream();
    const gateway = await serveGateway(db, { upstream, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    for (const idempotencyKey of ["", "has space", "x".repeat(256), '"unterminated', "é", 42]) {
      for (const way of Object.keys(WAYS) as (keyof typeof WAYS)[]) {
        const refused = await run(way, client, { ...pricedRun(), idempotencyKey });
        const label = `${JSON.stringify(idempotencyKey)} ${way}`;
        expect(refused.isError, label).toBe(true);
        expect(refused.text, label).toMatch(
          /^MCP error -32602: Input validation error: Invalid arguments for tool run: .*idempotencyKey/,
        );
      }
    }
    const refused = await run("plain", client, { ...pricedRun(), idempotencyKey: "has space" });
    expect(refused.text).toContain("1 to 255 visible ASCII characters");
    expect(upstream.requests).toHaveLength(0);
    expect(await ledgerOf(db, caller.accountId)).toEqual([]);
    const keys = await db.query("SELECT idempotency_key FROM edge.idempotency_keys WHERE scope = $1", [
      caller.accountId,
    ]);
    expect(keys).toEqual([]);
    await client.close();
    await gateway.close();
  });
});
