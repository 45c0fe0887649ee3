import { connect } from "node:net";
import { silentLogger } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRoute, createServiceApp, type RunningServer, serveApp, z } from "../src/index.ts";

let server: RunningServer;

beforeAll(async () => {
  const app = createServiceApp({
    name: "t",
    title: "t",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => undefined,
    bodyTimeoutMs: 300,
  });
  const route = createRoute({
    method: "post",
    path: "/things",
    operationId: "things",
    request: {
      body: { required: true, content: { "application/json": { schema: z.object({ name: z.string() }) } } },
    },
    responses: { 200: { description: "ok" } },
  });
  app.openapi(route, async (c) => {
    const body = c.req.valid("json");
    // A route slower than the deadline, once the body is in, is not cut short.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return c.json(body, 200);
  });
  server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
});
afterAll(() => server.close());

/** Sends the head and the first `sent` bytes of a body of `length`, then waits for the answer. */
function trickle(length: number, sent: string): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(
        `POST /things HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n${sent}`,
      );
    });
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    socket.on("error", () => undefined);
  });
}

describe("a request body that does not arrive in time", () => {
  it("is answered 408 REQUEST_TIMEOUT in the platform's body, and the connection closed", async () => {
    const answer = await trickle(100, '{"name":');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/connection: close/i);
    const body = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4));
    expect(body).toEqual({
      error: "REQUEST_TIMEOUT",
      message: "The request body did not arrive within 300 ms.",
    });
  });

  it("leaves a request whose body is all in alone, however long the route then takes", async () => {
    const body = '{"name":"ok"}';
    const answer = await new Promise<string>((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect(server.port, "127.0.0.1", () => {
        socket.write(
          `POST /things HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        );
      });
      socket.on("data", (chunk: Buffer) => chunks.push(chunk));
      socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1")));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
