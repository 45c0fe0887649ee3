import { type RunningServer, serveApp } from "@app/core";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { FakeUpstreamClient, jsonAnswer } from "../../src/upstream/client.fake.ts";
import { bearer, gatewayHarness, openAccount } from "../support/harness.ts";
import { connectMcp } from "../support/mcp-client.ts";
import { PRICED_PROVIDER } from "../support/priced.ts";

/**
 * Audit of 97528ac ("MCP inspect and run take strict arguments"): a `__proto__` key in a tool's
 * arguments is a key the tool does not take. `/v1/run` and `/v1/inspect` refuse it (400,
 * `Unrecognized key: "__proto__"`), and so does the direct path's strict parse
 * (callToolDirectly, services/gateway/src/mcp/server.ts). But a refusal there only means "hand
 * the message to the SDK" (routes/mcp.ts: `if (result === undefined) return undefined`), and the
 * SDK first parses the request with CallToolRequestSchema, whose `arguments` is
 * `z.record(z.string(), z.unknown())`: zod 4's record copies the object and silently skips a
 * `__proto__` key. The strict tool schema then sees a clean object and the tool runs; a priced
 * tool is charged.
 */
const MCP_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const PROTO_RUN = `{"provider":"priced","endpoint":"/echo","__proto__":{"status":"200"}}`;
const PROTO_INSPECT = `{"provider":"priced","endpoint":"/echo","__proto__":{}}`;

const message = (name: string, argumentsJson: string, extraParams = "") =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${argumentsJson}${extraParams}}}`;

type ToolAnswer = { result?: { isError?: boolean; content: { text: string }[] } };

async function pricedGateway(db: Parameters<typeof openAccount>[0]) {
  const upstream = new FakeUpstreamClient(() => jsonAnswer(200, { ok: true }));
  const h = gatewayHarness(db, { upstream, extraProviders: [PRICED_PROVIDER] });
  const caller = await openAccount(db, 1_000_000n);
  const nothingRanOrCharged = async () => {
    expect(upstream.requests, "sent upstream").toHaveLength(0);
    expect(await db.query("SELECT id FROM gateway.runs WHERE account_id = $1", [caller.accountId])).toEqual(
      [],
    );
    expect(
      await db.query("SELECT kind FROM gateway.ledger WHERE account_id = $1 AND kind = 'run'", [
        caller.accountId,
      ]),
    ).toEqual([]);
    const [account] = await db.query<{ balance: string }>(
      "SELECT balance_micro::text AS balance FROM gateway.accounts WHERE id = $1",
      [caller.accountId],
    );
    expect(account?.balance).toBe("1000000");
  };
  return { h, caller, upstream, nothingRanOrCharged };
}

describe("MCP arguments with a __proto__ key (a key no tool takes)", () => {
  for (const [label, extraParams] of [
    ["answered directly", ""],
    ["with _meta in params (SDK path)", `,"_meta":{"progressToken":1}`],
  ] as const) {
    test(`run is refused as /v1/run refuses it; nothing sent upstream, recorded or charged (${label})`, async ({
      db,
    }) => {
      const { h, caller, nothingRanOrCharged } = await pricedGateway(db);
      const overHttp = await h.app.request("/v1/run", {
        method: "POST",
        headers: { "content-type": "application/json", ...bearer(caller.key) },
        body: PROTO_RUN,
      });
      expect(overHttp.status).toBe(400);
      expect(await overHttp.text()).toContain("__proto__");

      const res = await h.app.request("/mcp", {
        method: "POST",
        headers: { ...MCP_HEADERS, ...bearer(caller.key) },
        body: message("run", PROTO_RUN, extraParams),
      });
      expect(res.status).toBe(200);
      const answer = (await res.json()) as ToolAnswer;
      expect(answer.result?.isError, JSON.stringify(answer)).toBe(true);
      expect(answer.result?.content[0]?.text).toMatch(/unrecognized key: "__proto__"/i);
      await nothingRanOrCharged();
      await h.close();
    });
  }

  test("inspect is refused as /v1/inspect refuses it", async ({ db }) => {
    const { h, caller } = await pricedGateway(db);
    const overHttp = await h.app.request("/v1/inspect", {
      method: "POST",
      headers: { "content-type": "application/json", ...bearer(caller.key) },
      body: PROTO_INSPECT,
    });
    expect(overHttp.status).toBe(400);
    const res = await h.app.request("/mcp", {
      method: "POST",
      headers: { ...MCP_HEADERS, ...bearer(caller.key) },
      body: message("inspect", PROTO_INSPECT),
    });
    const answer = (await res.json()) as ToolAnswer;
    expect(answer.result?.isError, JSON.stringify(answer)).toBe(true);
    expect(answer.result?.content[0]?.text).toMatch(/unrecognized key: "__proto__"/i);
    await h.close();
  });

  test("a batch holding such a call is refused whole; a notification is left unanswered; nothing runs", async ({
    db,
  }) => {
    const { h, caller, nothingRanOrCharged } = await pricedGateway(db);
    const post = (body: string) =>
      h.app.request("/mcp", { method: "POST", headers: { ...MCP_HEADERS, ...bearer(caller.key) }, body });
    const batch = await post(`[${message("inspect", PROTO_INSPECT)},${message("run", PROTO_RUN)}]`);
    expect(batch.status).toBe(400);
    expect(await batch.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32602 } });
    const notification = await post(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"run","arguments":${PROTO_RUN}}}`,
    );
    expect(notification.status).toBe(202);
    await nothingRanOrCharged();
    await h.close();
  });

  test("the official client's call with such arguments (parsed from a model's JSON) is refused and not charged", async ({
    db,
  }) => {
    const { h, caller, nothingRanOrCharged } = await pricedGateway(db);
    const server: RunningServer = await serveApp(h.app as never, { host: "127.0.0.1", port: 0 });
    const client = await connectMcp(server.url, bearer(caller.key));
    const result = (await client.callTool({ name: "run", arguments: JSON.parse(PROTO_RUN) })) as {
      isError?: boolean;
      content: { text: string }[];
    };
    try {
      expect(result.isError, JSON.stringify(result)).toBe(true);
      await nothingRanOrCharged();
    } finally {
      await client.close();
      await server.close();
      await h.close();
    }
  });
});
