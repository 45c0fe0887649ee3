import { z } from "@app/core";
import { describe, expect, it } from "vitest";
import { jsonOf } from "../src/http.ts";

const Pong = z.object({ ok: z.boolean(), count: z.number().int() });
const respond = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

describe("jsonOf", () => {
  it("gives the body typed by the route's schema", async () => {
    const body = await jsonOf(respond({ ok: true, count: 3 }), Pong);
    expect(body.count + 1).toBe(4);
  });

  it("fails the test when the body breaks the schema, saying where", async () => {
    await expect(jsonOf(respond({ ok: "yes", count: 3 }, 201), Pong)).rejects.toThrow(
      /The 201 response does not match its declared schema: .*"ok"/,
    );
  });
});
