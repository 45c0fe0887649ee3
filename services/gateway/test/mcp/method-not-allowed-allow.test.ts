import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { bearer, openAccount } from "../support/harness.ts";
import { serveGateway } from "../support/served.ts";

/** Attack: 405s on /mcp disagreed: `Allow: POST` for GET and DELETE, `GET, HEAD, POST, DELETE` for PUT and others. */
describe("a method other than POST on /mcp", () => {
  test("is 405 with the same Allow and the platform error body, whatever the method or key", async ({
    db,
  }) => {
    const gateway = await serveGateway(db);
    const caller = await openAccount(db);
    for (const headers of [bearer(caller.key), {}]) {
      for (const method of ["GET", "DELETE", "PUT", "PATCH", "OPTIONS", "HEAD"]) {
        const res = await fetch(`${gateway.url}/mcp`, { method, headers });
        expect(res.status, method).toBe(405);
        expect(res.headers.get("allow"), method).toBe("POST");
        if (method === "HEAD") continue;
        expect(await res.json(), method).toEqual({
          error: "METHOD_NOT_ALLOWED",
          message: expect.any(String),
          allow: ["POST"],
        });
      }
    }
    await gateway.close();
  });
});
