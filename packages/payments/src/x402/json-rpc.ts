/**
 * A small JSON-RPC client over `node:http(s)` with kept-alive connections, for the facilitator's
 * hot calls (a simulation and a send per payment). viem's transport goes through `fetch` and
 * layers of retry, dedupe and formatting: several times the CPU of the call itself here.
 *
 * @module
 */
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";

/** The largest answer read: a receipt or a call result is far smaller; a node sending more is broken. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** An error the node answered with (the call reached it and was refused). */
export class JsonRpcError extends Error {
  override readonly name = "JsonRpcError";
  readonly code: number;
  readonly data?: unknown;
  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The call got no answer in time, or its connection failed: the node may or may not have acted on it. */
export class JsonRpcTransportError extends Error {
  override readonly name = "JsonRpcTransportError";
}

export type JsonRpc = <T = unknown>(method: string, params: unknown[], timeoutMs?: number) => Promise<T>;

/** A JSON-RPC caller for `url`; each call waits at most `timeoutMs` (or its own). */
export function jsonRpc(url: string, options: { timeoutMs: number }): JsonRpc {
  const target = new URL(url);
  const https = target.protocol === "https:";
  const agent = https
    ? new HttpsAgent({ keepAlive: true, maxSockets: 32 })
    : new HttpAgent({ keepAlive: true, maxSockets: 32 });
  const send = https ? httpsRequest : httpRequest;
  const path = `${target.pathname}${target.search}`;
  let nextId = 1;
  return <T>(method: string, params: unknown[], timeoutMs = options.timeoutMs) =>
    new Promise<T>((resolve, reject) => {
      const body = JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params });
      const req = send(
        {
          agent,
          protocol: target.protocol,
          hostname: target.hostname,
          port: target.port,
          path,
          method: "POST",
          auth: target.username ? `${target.username}:${target.password}` : undefined,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on("data", (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) {
              req.destroy(new JsonRpcTransportError(`${method}: answer over ${MAX_ANSWER_BYTES} bytes`));
              return;
            }
            chunks.push(chunk);
          });
          res.on("error", (error) => reject(new JsonRpcTransportError(`${method}: ${error.message}`)));
          res.on("end", () => {
            clearTimeout(timer);
            let reply: { result?: unknown; error?: { code: number; message: string; data?: unknown } };
            try {
              reply = JSON.parse(Buffer.concat(chunks).toString("utf8"));
            } catch {
              reject(new JsonRpcTransportError(`${method}: HTTP ${res.statusCode}, not JSON`));
              return;
            }
            // A JSON-RPC answer is an object with a result or an error; anything else (null, `{}`)
            // answers nothing, and must not pass for a result (an `eth_call` that "ran").
            if (typeof reply !== "object" || reply === null || !("result" in reply || reply.error)) {
              reject(new JsonRpcTransportError(`${method}: HTTP ${res.statusCode}, not a JSON-RPC answer`));
              return;
            }
            if (reply.error) {
              reject(
                new JsonRpcError(reply.error.code, `${method}: ${reply.error.message}`, reply.error.data),
              );
            } else resolve(reply.result as T);
          });
        },
      );
      const timer = setTimeout(() => {
        req.destroy(new JsonRpcTransportError(`${method}: no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      req.on("error", (error) => {
        clearTimeout(timer);
        reject(
          error instanceof JsonRpcTransportError
            ? error
            : new JsonRpcTransportError(`${method}: ${error.message}`),
        );
      });
      req.end(body);
    });
}
