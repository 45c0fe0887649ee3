import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { bearer, openAccount } from "../support/harness.ts";
import { serveGateway } from "../support/served.ts";

const TOOLS_LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });

/** Attack: a POST to /mcp whose body is not declared JSON was not answered 415 with the platform error body. */
describe("a POST to /mcp whose content type is not JSON", () => {
  test("is 415 UNSUPPORTED_MEDIA_TYPE with the platform error body", async ({ db }) => {
    const gateway = await serveGateway(db);
    const caller = await openAccount(db);
    for (const contentType of [
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "text/plain; a=application/json",
      undefined,
    ]) {
      const res = await fetch(`${gateway.url}/mcp`, {
        method: "POST",
        headers: {
          ...bearer(caller.key),
          accept: "application/json, text/event-stream",
          ...(contentType ? { "content-type": contentType } : {}),
        },
        body: new TextEncoder().encode(TOOLS_LIST),
      });
      expect(res.status, contentType).toBe(415);
      expect(await res.json(), contentType).toEqual({
        error: "UNSUPPORTED_MEDIA_TYPE",
        message: expect.any(String),
      });
    }
    const unauthenticated = await fetch(`${gateway.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: TOOLS_LIST,
    });
    expect(unauthenticated.status).toBe(401);
    await gateway.close();
  });
});
