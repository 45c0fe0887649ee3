import { createReadStream, createWriteStream } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { json, silentLogger } from "@app/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServiceApp, type RunningServer, serveApp, streamRequestBody } from "../src/index.ts";
import { exampleApp } from "./helpers.ts";

const LIMIT = 64 * 1024;

/** Sends raw HTTP on a socket, a chunk every few ms, and records what arrived when. */
function slowUpload(port: number, headers: string, chunks: number, chunkSize: number) {
  return new Promise<{ response: string; bytesSentBeforeResponse: number; closedByServer: boolean }>(
    (resolve) => {
      const socket = connect(port, "127.0.0.1");
      let sent = 0;
      let response = "";
      let sentAtResponse = -1;
      let timer: NodeJS.Timeout | undefined;
      socket.on("connect", () => {
        socket.write(headers);
        let i = 0;
        timer = setInterval(() => {
          if (i++ >= chunks || socket.destroyed) return clearInterval(timer);
          socket.write(Buffer.alloc(chunkSize, 120));
          sent += chunkSize;
        }, 5);
      });
      socket.on("data", (data) => {
        if (sentAtResponse < 0) sentAtResponse = sent;
        response += data.toString("latin1");
      });
      socket.on("error", () => undefined);
      socket.on("close", () => {
        clearInterval(timer);
        resolve({
          response,
          bytesSentBeforeResponse: sentAtResponse,
          closedByServer: sent < chunks * chunkSize,
        });
      });
    },
  );
}

describe("content-length guard", () => {
  const app = exampleApp(silentLogger(), { maxBodyBytes: LIMIT });
  let server: RunningServer;
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "upload-"));
    app.post("/upload", async (c) => {
      const target = join(dir, "body.bin");
      const bytes = await streamRequestBody(c, createWriteStream(target), { maxBytes: LIMIT });
      return c.json({ bytes });
    });
    server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
  });
  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("answers 413 with Connection: close when the declared length is over the limit", async () => {
    const res = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(LIMIT + 1) },
      body: "{}",
    });
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect((await json(res)).error).toBe("PAYLOAD_TOO_LARGE");
  });

  it("answers 411 with Connection: close for a chunked body without a length", async () => {
    const res = await app.request("/echo", {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: "{}",
    });
    expect(res.status).toBe(411);
    expect(res.headers.get("connection")).toBe("close");
    expect((await json(res)).error).toBe("LENGTH_REQUIRED");
  });

  it("answers 413 before the body is read: the answer comes while the client is still sending", async () => {
    const declared = 600 * 1024 * 1024;
    const result = await slowUpload(
      server.port,
      `POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
      400,
      16 * 1024,
    );
    expect(result.response).toMatch(/^HTTP\/1\.1 413/);
    expect(result.response.toLowerCase()).toContain("connection: close");
    expect(result.bytesSentBeforeResponse).toBeLessThan(declared / 100);
    expect(result.closedByServer).toBe(true);
  });

  it("answers 411 over a real socket for a chunked body", async () => {
    const result = await slowUpload(
      server.port,
      "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n",
      200,
      1024,
    );
    expect(result.response).toMatch(/^HTTP\/1\.1 411/);
    expect(result.closedByServer).toBe(true);
  });

  it("echoes a sane request id over a real socket and replaces a hostile one", async () => {
    const echoed = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "trace-42" } });
    expect(echoed.headers.get("x-request-id")).toBe("trace-42");
    const replaced = await fetch(`${server.url}/healthz`, { headers: { "x-request-id": "a b<c>" } });
    expect(replaced.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("streams an accepted body to its sink byte for byte", async () => {
    const source = join(dir, "source.bin");
    const payload = Buffer.alloc(LIMIT - 10);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7) % 251;
    await writeFile(source, payload);
    const res = await fetch(`${server.url}/upload`, {
      method: "POST",
      headers: { "content-length": String(payload.length) },
      body: createReadStream(source) as never,
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ bytes: payload.length });
    expect((await readFile(join(dir, "body.bin"))).equals(payload)).toBe(true);
  });
});

describe("streaming a request body", () => {
  it("streams a body far longer than one socket read from Node's request, never waiting forever", async () => {
    const app = createServiceApp({
      name: "uploads",
      title: "Uploads",
      version: "1",
      logger: silentLogger(),
      checkReady: async () => undefined,
      ownBodyGuard: (path) => path === "/big",
    });
    let received = 0;
    app.post("/big", async (c) => {
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          received += chunk.length;
          done();
        },
      });
      return c.json({ bytes: await streamRequestBody(c, sink, { maxBytes: 64 * 1024 * 1024 }) });
    });
    const running = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const size = 8 * 1024 * 1024;
      const res = await fetch(`${running.url}/big`, {
        method: "POST",
        headers: { "content-length": String(size) },
        body: Buffer.alloc(size, 7),
        signal: AbortSignal.timeout(20_000),
      });
      expect(res.status).toBe(200);
      expect(await json(res)).toEqual({ bytes: size });
      expect(received).toBe(size);
    } finally {
      await running.close();
    }
  });
});
