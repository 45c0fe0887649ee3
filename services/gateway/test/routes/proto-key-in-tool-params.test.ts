import { type RunningServer, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";
import { callTool, connectMcp } from "../support/mcp-client.ts";
import { PRICED_PROVIDER } from "../support/priced.ts";

/**
 * A `__proto__` key inside `input.queryParams` or `input.pathParams` is a parameter no tool takes,
 * refused exactly as `constructor` is (400 `INVALID_INPUT`, `Unrecognized key`), over `/v1/run`
 * and over MCP's `run`. `JSON.parse` makes it an own property, but a copy of the object (zod's
 * record, a spread) drops it without a word: the tool would then run, and a priced one be charged.
 */
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const PARTS = ["queryParams", "pathParams"] as const;

/** A run of the priced tool whose `input[part]` holds `key` (as JSON text: `__proto__` stays a key). */
const runJson = (part: string, key: string) =>
  `{"provider":"priced","endpoint":"/echo","method":"GET","input":{"${part}":{"${key}":{"status":"200"}}}}`;

const mcpMessage = (argumentsJson: string, extraParams = "") =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run","arguments":${argumentsJson}${extraParams}}}`;

type ToolAnswer = {
  result?: { isError?: boolean; content: { text: string }[]; structuredContent?: unknown };
};

async function pricedGateway(db: Database) {
  const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
  const h = gatewayHarness(db, { upstream, extraProviders: [PRICED_PROVIDER] });
  const caller = await openAccount(db, 1_000_000n);
  const overHttp = async (body: string) => {
    const res = await h.app.request("/v1/run", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(caller.key) },
      body,
    });
    return { status: res.status, body: await res.json() };
  };
  const overMcp = async (body: string) => {
    const res = await h.app.request("/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(caller.key) },
      body,
    });
    expect(res.status).toBe(200);
    return (await res.json()) as ToolAnswer;
  };
  const nothingRanOrCharged = async () => {
    expect(upstream.requests, "sent upstream").toHaveLength(0);
    expect(await db.query("SELECT id FROM gateway.runs WHERE account_id = $1", [caller.accountId])).toEqual(
      [],
    );
    const [account] = await db.query<{ balance: string }>(
      "SELECT balance_micro::text AS balance FROM gateway.accounts WHERE id = $1",
      [caller.accountId],
    );
    expect(account?.balance).toBe("1000000");
  };
  return { h, caller, overHttp, overMcp, nothingRanOrCharged };
}

/** The error body `key` gets in `part`: what `constructor` gets, with its own name. */
const unknownParameter = (part: string, key: string) => ({
  error: "INVALID_INPUT",
  message: "The run's input does not match the tool's schema.",
  issues: [{ path: `input.${part}`, message: `Unrecognized key: "${key}"` }],
});

describe("a __proto__ key in a run's queryParams or pathParams (a parameter no tool takes)", () => {
  for (const part of PARTS) {
    test(`in ${part}: /v1/run refuses it as it refuses constructor; nothing runs or is charged`, async ({
      db,
    }) => {
      const { h, overHttp, nothingRanOrCharged } = await pricedGateway(db);
      const constructorAnswer = await overHttp(runJson(part, "constructor"));
      expect(constructorAnswer).toEqual({ status: 400, body: unknownParameter(part, "constructor") });
      const protoAnswer = await overHttp(runJson(part, "__proto__"));
      expect(protoAnswer).toEqual({ status: 400, body: unknownParameter(part, "__proto__") });
      await nothingRanOrCharged();
      await h.close();
    });

    for (const [label, extraParams] of [
      ["answered directly", ""],
      ["with _meta in params (SDK path)", `,"_meta":{"progressToken":1}`],
    ] as const) {
      test(`in ${part}: MCP run refuses it as it refuses constructor (${label}); nothing runs or is charged`, async ({
        db,
      }) => {
        const { h, overMcp, nothingRanOrCharged } = await pricedGateway(db);
        for (const key of ["constructor", "__proto__"]) {
          const answer = await overMcp(mcpMessage(runJson(part, key), extraParams));
          expect(answer.result?.isError, JSON.stringify(answer)).toBe(true);
          expect(JSON.parse(answer.result?.content[0]?.text ?? "null")).toEqual(unknownParameter(part, key));
          expect(answer.result?.structuredContent).toEqual(unknownParameter(part, key));
        }
        await nothingRanOrCharged();
        await h.close();
      });
    }

    test(`in ${part}: the official MCP client's call (arguments parsed from a model's JSON) is refused`, async ({
      db,
    }) => {
      const { h, caller, nothingRanOrCharged } = await pricedGateway(db);
      const server: RunningServer = await serveApp(h.app as never, { host: "127.0.0.1", port: 0 });
      const client = await connectMcp(server.url, bearer(caller.key));
      try {
        const called = await callTool(client, "run", JSON.parse(runJson(part, "__proto__")));
        expect(called.isError).toBe(true);
        expect(called.body).toEqual(unknownParameter(part, "__proto__"));
        await nothingRanOrCharged();
      } finally {
        await client.close();
        await server.close();
        await h.close();
      }
    });
  }
});
