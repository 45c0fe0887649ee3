import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@app/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBlueskyClient } from "../../src/platforms/bluesky/bluesky-client.ts";
import { PlatformError } from "../../src/platforms/errors.ts";

/** A hostile self-hosted PDS: answers of many megabytes, announced or streamed. */
let server: Server;
let pds: string;
let bytesSent = 0;
const MB = 1024 * 1024;

beforeAll(async () => {
  server = createServer((req, res) => {
    const huge = "x".repeat(MB);
    if (req.url?.includes("createSession")) {
      // An error whose message is 20 MB, streamed without Content-Length.
      res.writeHead(400, { "content-type": "application/json" });
      res.write('{"error":"InvalidRequest","message":"');
      let sent = 0;
      const more = () => {
        while (sent < 20 && res.write(huge)) {
          sent += 1;
          bytesSent += MB;
        }
        if (sent < 20) res.once("drain", more);
        else res.end('"}');
      };
      res.on("close", () => res.off("drain", more));
      more();
    } else if (req.url?.includes("refreshSession")) {
      // A success of 5 MB, announced: refused before it is read.
      const body = JSON.stringify({ accessJwt: huge.repeat(5), refreshJwt: "r", did: "did:plc:x" });
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    } else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  pds = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe("answers of a hostile PDS are read to a bound", () => {
  const client = createBlueskyClient({ timeoutMs: 10_000, uploadTimeoutMs: 10_000 }, systemClock);

  it("stops reading an error answer past 64 KiB and keeps a short message", async () => {
    const error = await client.createSession(pds, "did:plc:x", "pass").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PlatformError);
    const failure = error as PlatformError;
    expect(failure.reason).toBe("http_400");
    expect(failure.describe().length).toBeLessThanOrEqual(700);
    expect(bytesSent).toBeLessThan(20 * MB);
  });

  it("refuses a success answer announced over 1 MiB as an incomplete answer", async () => {
    const error = await client.refreshSession(pds, "refresh").catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: "transient", reason: "bad_response" });
  });

  it("cuts a platform's reason and message to a bound", () => {
    const error = new PlatformError("bluesky", "permanent", "r".repeat(1000), "m".repeat(100_000));
    expect(error.reason.length).toBeLessThanOrEqual(100);
    expect(error.message.length).toBeLessThanOrEqual(500);
  });
});
