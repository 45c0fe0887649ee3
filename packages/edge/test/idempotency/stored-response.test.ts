import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { sendStoredResponse, storedJson, storedJsonText } from "../../src/idempotency/stored-response.ts";

describe("stored responses", () => {
  it("are sent as the bytes first sent, with their status and headers; a replay says so", async () => {
    const text = '{"fortune": "Soon.",\n "charged":"0.003"}';
    const stored = storedJsonText(201, text, { "Cache-Control": "private" });
    const app = new Hono();
    app.get("/first", (c) => sendStoredResponse(c, stored, false));
    app.get("/again", (c) => sendStoredResponse(c, stored, true));
    const first = await app.request("/first");
    const again = await app.request("/again");
    for (const res of [first, again]) {
      expect(res.status).toBe(201);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.headers.get("cache-control")).toBe("private");
      expect(await res.text()).toBe(text);
    }
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(again.headers.get("idempotent-replayed")).toBe("true");
  });

  it("a JSON value is serialised once, in its own key order", () => {
    expect(storedJson(200, { fortune: "f", category: "c", charged: "1" })).toEqual({
      status: 200,
      headers: { "Content-Type": "application/json" },
      body: '{"fortune":"f","category":"c","charged":"1"}',
    });
  });
});
