/**
 * Audit of f2ff0f7's `json-rpc.ts` (the facilitator's kept-alive JSON-RPC client) against broken
 * or hostile node answers. A node answering the JSON text `null` (a misbehaving proxy, a load
 * balancer's empty reply body as JSON) makes the response handler throw inside an `end` listener:
 * an uncaught exception that takes the whole service process down, and the call never settles.
 * An answer with neither `result` nor `error` resolves as an `undefined` result: the native path's
 * simulation (`exact-eip3009.ts` `simulate`: any resolution of `eth_call` is "ran") passes on it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { JsonRpcError, JsonRpcTransportError, jsonRpc } from "../src/x402/json-rpc.ts";

let servers: Server[] = [];
async function node(answer: (req: IncomingMessage, res: ServerResponse, body: string) => void) {
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    answer(req, res, Buffer.concat(chunks).toString("utf8"));
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
afterEach(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  servers = [];
});

/** The call's outcome within `ms`: "resolved", the error, or "no answer". */
const within = (call: Promise<unknown>, ms: number) =>
  Promise.race([
    call.then(
      () => "resolved" as const,
      (error: unknown) => error,
    ),
    new Promise((resolve) => setTimeout(() => resolve("no answer"), ms)),
  ]);

describe("audit: json-rpc.ts against broken node answers", () => {
  it("refuses an answer whose JSON is `null` (no uncaught exception, the call is rejected)", async () => {
    const url = await node((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("null");
    });
    const rpc = jsonRpc(url, { timeoutMs: 2_000 });
    const outcome = await within(rpc("eth_call", []), 1_000);
    expect(outcome).toBeInstanceOf(JsonRpcTransportError);
  });

  it("refuses an answer with neither `result` nor `error` (an eth_call simulation must not pass on it)", async () => {
    const url = await node((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 1 }));
    });
    const rpc = jsonRpc(url, { timeoutMs: 1_000 });
    const outcome = await within(rpc("eth_call", []), 1_000);
    expect(outcome).toBeInstanceOf(Error);
  });

  // What held up.
  it("never hands a late answer to the next call on a reused connection", async () => {
    let calls = 0;
    const url = await node((_req, res, body) => {
      const { id } = JSON.parse(body) as { id: number };
      const call = ++calls;
      setTimeout(
        () => {
          if (res.destroyed) return;
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({ jsonrpc: "2.0", id, result: `answer-${call}` }));
        },
        call === 1 ? 300 : 0,
      );
    });
    const rpc = jsonRpc(url, { timeoutMs: 100 });
    await expect(rpc("first", [])).rejects.toBeInstanceOf(JsonRpcTransportError);
    await new Promise((r) => setTimeout(r, 400));
    expect(await rpc("second", [])).toBe("answer-2");
    expect(await rpc("third", [])).toBe("answer-3");
  });

  it("keeps the URL's credentials out of its errors", async () => {
    const closed = await node((_req, res) => res.end());
    const { port } = new URL(closed);
    servers[0]?.close();
    const rpc = jsonRpc(`http://user:s3cret-token@127.0.0.1:${port}/key/s3cret-path`, { timeoutMs: 500 });
    const error = (await rpc("eth_chainId", []).catch((e: Error) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).not.toContain("s3cret");
  });

  it("rejects an invalid JSON body and an error object with their kinds", async () => {
    const garbage = await node((_req, res) => res.end("<html>bad gateway</html>"));
    await expect(jsonRpc(garbage, { timeoutMs: 500 })("eth_call", [])).rejects.toBeInstanceOf(
      JsonRpcTransportError,
    );
    const refusing = await node((_req, res) =>
      res.end(JSON.stringify({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "nope" } })),
    );
    await expect(jsonRpc(refusing, { timeoutMs: 500 })("eth_call", [])).rejects.toBeInstanceOf(JsonRpcError);
  });
});
