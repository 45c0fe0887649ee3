import { captureLogs, test } from "@app/testkit";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { type FakeServer, startServer } from "../support/fake-upstreams.ts";
import { bearer, gatewayTablesAsText, openAccount, postJson } from "../support/harness.ts";
import { connectMcp } from "../support/mcp-client.ts";
import { serveGateway } from "../support/served.ts";

/** The caller's shop key: a `/` in it, so `\/` is one of its JSON spellings. */
const KEY = "upk/ESC+CANARY_7f3a";

/** Every character as a `\uXXXX` escape. */
const unicodeEscaped = (text: string) =>
  [...text].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");

/**
 * The spellings of the key a careless upstream might write back: JSON escapes other than
 * `JSON.stringify`'s (`\/`, `\uXXXX`, a mix), in a value and as an object key.
 */
const ECHOING_BODY =
  `{"error":"BAD_KEY","slashes":"key ${KEY.replaceAll("/", "\\/")} refused",` +
  `"unicode":"${unicodeEscaped(KEY)}","mixed":"\\u${KEY.charCodeAt(0).toString(16).padStart(4, "0")}${KEY.slice(1).replaceAll("/", "\\/")}",` +
  `"${unicodeEscaped(KEY)}":true,"nested":[{"deeper":"x${unicodeEscaped(KEY)}x"}]}`;

/** Whether `text` holds the key: as it stands, or in any string of it read as JSON (nested JSON text included). */
function holdsKey(text: string): boolean {
  if (text.includes(KEY) || text.includes(KEY.replaceAll("/", "\\/"))) return true;
  const pending: unknown[] = [];
  try {
    pending.push(JSON.parse(text));
  } catch {
    return false;
  }
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") {
      if (value.includes(KEY)) return true;
      if (/^\s*[[{]/.test(value)) {
        try {
          pending.push(JSON.parse(value));
        } catch {
          // Text, not JSON.
        }
      }
    } else if (value !== null && typeof value === "object") {
      for (const [name, item] of Object.entries(value)) pending.push(name, item);
    }
  }
  return false;
}

let shop: FakeServer;
beforeAll(async () => {
  shop = await startServer((req, res) => {
    res.writeHead(429, {
      "content-type": "application/json",
      "retry-after": `kkk/${req.headers["x-shop-key"]}`,
    });
    res.end(ECHOING_BODY);
  });
});
afterAll(() => shop.close());

const SHOP_RUN = { provider: "shop", endpoint: "/api/shops/agent-availability", method: "GET", input: {} };

/**
 * Attack: the upstream's `Retry-After` was echoed unchecked (`"retryAfter":"kkk/<key>"`), and the
 * key written with JSON escapes other than `JSON.stringify`'s passed the scrub; the MCP SDK's path
 * then wrote it in clear, and both were stored with the answer of an `Idempotency-Key`.
 */
describe("an upstream that echoes the caller's key in its Retry-After and in escaped JSON", () => {
  test("never gets the key into an answer (HTTP, both MCP paths), the database or the logs", async ({
    db,
  }) => {
    expect(holdsKey(ECHOING_BODY)).toBe(true);
    const { logger, lines } = captureLogs("debug");
    const gateway = await serveGateway(db, { logger, urls: { shop: shop.url } });
    const caller = await openAccount(db);
    const answers: string[] = [];
    const record = async (res: Response) => {
      const text = await res.text();
      answers.push(`${res.status}\n${[...res.headers].map(([n, v]) => `${n}: ${v}`).join("\n")}\n${text}`);
      return text;
    };
    const viaHeader = await record(
      await postJson(gateway.app, "/v1/run", SHOP_RUN, { ...bearer(caller.key), "x-upstream-key": KEY }),
    );
    for (let attempt = 0; attempt < 2; attempt += 1) {
      await record(
        await postJson(
          gateway.app,
          "/v1/run",
          { ...SHOP_RUN, upstreamKey: KEY },
          { ...bearer(caller.key), "idempotency-key": "echoing-upstream" },
        ),
      );
    }
    const mcpCalls: ((client: Client) => Promise<unknown>)[] = [
      (client) => client.callTool({ name: "run", arguments: SHOP_RUN }),
      (client) => client.callTool({ name: "run", arguments: SHOP_RUN }, undefined, { onprogress: () => {} }),
      (client) => client.callTool({ name: "run", arguments: { ...SHOP_RUN, upstreamKey: KEY }, _meta: {} }),
    ];
    const fetchRecorded = async (url: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(url, init);
      await record(res.clone());
      return res;
    };
    const client = await connectMcp(
      gateway.url,
      { ...bearer(caller.key), "x-upstream-key": KEY },
      fetchRecorded,
    );
    for (const call of mcpCalls) await call(client);
    await client.close();
    await gateway.deps.usage.flush();

    const envelope = JSON.parse(viaHeader);
    expect(envelope.upstream).toEqual({ status: 429 });
    expect(envelope.output.error).toBe("BAD_KEY");
    expect(envelope.output.slashes).toBe("key [redacted] refused");
    expect(shop.seen.filter((request) => request.headers["x-shop-key"] === KEY)).toHaveLength(5);
    expect(answers.filter((answer) => answer.includes('"BAD_KEY')).length).toBeGreaterThanOrEqual(6);

    const stored = await db.query<{ row: string; body: string | null }>(
      "SELECT t::text AS row, body FROM edge.idempotency_keys t WHERE scope = $1",
      [caller.accountId],
    );
    expect(stored).toHaveLength(1);
    for (const [where, texts] of [
      ["answers", answers],
      ["stored answers", stored.flatMap((row) => [row.row, row.body ?? ""])],
      ["gateway tables", [await gatewayTablesAsText(db)]],
      ["logs", lines],
    ] as const) {
      for (const text of texts) expect(holdsKey(text), `${where}: ${text.slice(0, 400)}`).toBe(false);
    }
    await gateway.close();
  });
});
