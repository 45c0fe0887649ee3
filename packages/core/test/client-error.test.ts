import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { silentLogger } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerClientError, clientErrorResponse } from "../src/http/client-error.ts";
import { type RunningServer, serveApp } from "../src/index.ts";
import { exampleApp } from "./helpers.ts";

/** Sends raw bytes on a fresh connection and reads everything until the server closes it. */
function rawExchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let response = "";
    socket.on("connect", () => socket.write(request));
    socket.on("data", (data) => {
      response += data.toString("latin1");
    });
    socket.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ECONNRESET" || error.code === "EPIPE") resolve(response);
      else reject(error);
    });
    socket.on("close", () => resolve(response));
  });
}

const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf("\r\n\r\n") + 4));

describe("requests Node refuses before the app sees them", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveApp(exampleApp(silentLogger()) as never, { host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await server.close();
  });

  it("headers over the limit: 431 with the platform's JSON error and Connection: close", async () => {
    const res = await fetch(`${server.url}/healthz`, { headers: { "x-big": "A".repeat(64 * 1024) } });
    expect(res.status).toBe(431);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("connection")).toBe("close");
    expect(await res.json()).toEqual({
      error: "REQUEST_HEADER_FIELDS_TOO_LARGE",
      message: "The request's headers are larger than this server accepts.",
    });
  });

  it("malformed HTTP: 400 BAD_REQUEST, its length declared, the connection closed", async () => {
    const response = await rawExchange(server.port, "GET /healthz HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n");
    expect(response).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(response).toContain("\r\nConnection: close\r\n");
    expect(response).toContain("\r\nContent-Type: application/json\r\n");
    const body = bodyOf(response);
    expect(body).toEqual({ error: "BAD_REQUEST", message: "The request is not valid HTTP." });
    expect(response).toContain(`\r\nContent-Length: ${Buffer.byteLength(JSON.stringify(body))}\r\n`);
    expect(response).not.toMatch(/at \w+ \(|node:/);
  });

  it("still serves a well-formed request on the same server", async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});

describe("answerClientError", () => {
  it("writes nothing to a socket that cannot be written to, or whose response is under way; destroys it", () => {
    let written = "";
    const spy = (socket: PassThrough) => {
      // A server's socket always has an error listener (Node's own): the destroy's error lands there.
      socket.on("error", () => {});
      const write = socket.write.bind(socket);
      socket.write = ((chunk: string, ...rest: never[]) => {
        written += String(chunk);
        return write(chunk, ...rest);
      }) as typeof socket.write;
      return socket;
    };
    const closed = spy(new PassThrough());
    closed.end();
    answerClientError(Object.assign(new Error("x"), { code: "HPE_HEADER_OVERFLOW" }), closed);
    expect(closed.destroyed).toBe(true);

    const answering = Object.assign(spy(new PassThrough()), { _httpMessage: { headersSent: true } });
    answerClientError(Object.assign(new Error("x"), { code: "HPE_INVALID_METHOD" }), answering);
    expect(answering.destroyed).toBe(true);

    const reset = spy(new PassThrough());
    answerClientError(Object.assign(new Error("x"), { code: "ECONNRESET" }), reset);
    expect(reset.destroyed).toBe(true);
    expect(written).toBe("");
  });

  it("answers a header timeout 408 and anything unknown 400, in the platform's body", () => {
    expect(clientErrorResponse("ERR_HTTP_REQUEST_TIMEOUT")).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(clientErrorResponse("HPE_SOMETHING_NEW")).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(clientErrorResponse(undefined)).toContain('{"error":"BAD_REQUEST"');
  });
});
