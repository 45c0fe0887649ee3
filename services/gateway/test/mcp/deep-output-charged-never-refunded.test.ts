import type { Database } from "@app/db";
import { test } from "@app/testkit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { describe, expect } from "vitest";
import { FakeUpstreamClient } from "../../src/upstream/client.fake.ts";
import type { UpstreamResponse } from "../../src/upstream/client.ts";
import { bearer, openAccount } from "../support/harness.ts";
import { connectMcp } from "../support/mcp-client.ts";
import { PRICE_MICRO, PRICED_PROVIDER, pricedRun } from "../support/priced.ts";
import { serveGateway } from "../support/served.ts";

/** The three ways the official client calls a tool: plain (the direct path), with `onprogress` or `_meta` (the SDK's). */
const CALLS = {
  plain: (client: Client) => client.callTool({ name: "run", arguments: pricedRun() }),
  onprogress: (client: Client) =>
    client.callTool({ name: "run", arguments: pricedRun() }, undefined, { onprogress: () => undefined }),
  meta: (client: Client) => client.callTool({ name: "run", arguments: pricedRun(), _meta: { trace: "t-1" } }),
};

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

/** The run envelope's text with what differs between two runs (id, balance left, duration) made equal. */
const normalised = (text: string) =>
  text
    .replace(/run_[A-Za-z0-9_-]{20}/g, "run_X")
    .replace(/"balance":\{"amount":"[0-9.]+"/, '"balance":{"amount":"X"')
    .replace(/"durationMs":\d+/g, '"durationMs":0');

/** An upstream answering `body` as JSON; with `read`, a body that only `read` produces when it is read. */
function answering(body: string, read?: () => Uint8Array): FakeUpstreamClient {
  return new FakeUpstreamClient(() => {
    const response: UpstreamResponse = {
      status: 200,
      contentType: "application/json",
      retryAfter: undefined,
      body: new TextEncoder().encode(body),
    };
    if (read) Object.defineProperty(response, "body", { get: read });
    return response;
  });
}

async function ledgerOf(db: Database, accountId: string) {
  const rows = await db.query<{ kind: string; amount_micro: string }>(
    "SELECT kind, amount_micro::text FROM gateway.ledger WHERE account_id = $1 AND kind <> 'credit' ORDER BY id",
    [accountId],
  );
  return rows.map((row) => `${row.kind} ${row.amount_micro}`);
}

const outcomes = async (db: Database, accountId: string) =>
  (
    await db.query<{ outcome: string }>("SELECT outcome FROM gateway.runs WHERE account_id = $1", [accountId])
  ).map((row) => row.outcome);

/**
 * Attack: a priced MCP run whose upstream answered 200 with 20,000 levels of JSON (200 KB), called
 * the way the official client calls with `onprogress` or `_meta` (the SDK's path), was `INTERNAL`
 * (a stack overflow re-serialising the output) and kept its charge with no refund.
 */
describe("a priced MCP run whose upstream answers deeply nested JSON", () => {
  test("answers the upstream's bytes on every path, each run charged once and completed", async ({ db }) => {
    const deep = `${'{"level":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    expect(deep.length).toBeGreaterThan(200_000);
    const gateway = await serveGateway(db, { upstream: answering(deep), extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const texts: string[] = [];
    for (const [how, call] of Object.entries(CALLS)) {
      const result = (await call(client)) as ToolResult;
      const text = result.content[0]?.text ?? "";
      expect(result.isError, `${how}: ${text.slice(0, 200)}`).toBeUndefined();
      expect(text).toContain(`"output":${deep},`);
      texts.push(normalised(text));
    }
    expect(new Set(texts).size).toBe(1);
    await gateway.deps.held.flush(); // priced runs are settled behind their answers
    expect(await ledgerOf(db, caller.accountId)).toEqual(Array(3).fill("run -250000"));
    expect(await outcomes(db, caller.accountId)).toEqual(["completed", "completed", "completed"]);
    await client.close();
    await gateway.close();
  });

  test("a failure after the charge finishes the run failed and refunds it, on every path", async ({ db }) => {
    const unreadable = answering("", () => {
      throw new Error("the upstream's answer could not be read");
    });
    const gateway = await serveGateway(db, { upstream: unreadable, extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    for (const [how, call] of Object.entries(CALLS)) {
      const result = (await call(client)) as ToolResult;
      expect(result.isError, how).toBe(true);
      expect(JSON.parse(result.content[0]?.text ?? "null")).toMatchObject({ error: "INTERNAL" });
    }
    await gateway.deps.held.flush(); // priced runs are settled behind their answers
    expect(await ledgerOf(db, caller.accountId)).toEqual(
      Array(3).fill(["run -250000", "refund 250000"]).flat(),
    );
    expect(await outcomes(db, caller.accountId)).toEqual(["failed", "failed", "failed"]);
    await client.close();
    await gateway.close();
  });
});

/**
 * Attack: the direct path spliced the upstream's JSON as sent while the SDK's path re-serialised
 * it: `1e400` came back as `null`, `1.10` as `1.1`, and an integer-like key moved first.
 */
describe("MCP run output on the direct and the SDK paths", () => {
  test("is the same bytes, the upstream's own, whichever path the call takes", async ({ db }) => {
    const body = '{"big":1e400,"tiny":1e-400,"exact":1.10,"b":1,"1":2,"s":"\\u00e9\\/"}';
    const gateway = await serveGateway(db, { upstream: answering(body), extraProviders: [PRICED_PROVIDER] });
    const caller = await openAccount(db, 10n * PRICE_MICRO);
    const client = await connectMcp(gateway.url, bearer(caller.key));
    const texts: string[] = [];
    for (const call of Object.values(CALLS)) {
      const text = ((await call(client)) as ToolResult).content[0]?.text ?? "";
      expect(text).toContain(`"output":${body},`);
      texts.push(normalised(text));
    }
    expect(new Set(texts).size).toBe(1);
    await client.close();
    await gateway.close();
  });
});
