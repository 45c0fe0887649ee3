import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { serveGateway } from "../support/served.ts";

describe("a request whose headers pass the server's limit (an oversize MPP credential, say)", () => {
  test("is refused with the platform's JSON error body, not an empty 431", async ({ db }) => {
    const gateway = await serveGateway(db);
    try {
      const res = await fetch(`${gateway.url}/v1/credits`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Payment ${"A".repeat(60_000)}` },
        body: JSON.stringify({ amount: "0.50" }),
      });
      const text = await res.text();
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.headers.get("content-type") ?? "").toContain("application/json");
      expect(JSON.parse(text || "null")).toMatchObject({
        error: expect.any(String),
        message: expect.any(String),
      });
    } finally {
      await gateway.close();
    }
  });
});
