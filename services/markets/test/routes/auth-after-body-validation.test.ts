import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { jsonBody, marketsApp } from "../harness.ts";

/** Attack: markets validated a body before it authenticated the caller (the gateway and the shop answer 401 first). */
describe("audit: a paper order or a resolution without a valid token", () => {
  test("is 401 before its body is looked at, whatever the body", async ({ db }) => {
    const app = marketsApp(db);
    for (const path of ["/pm/paper/orders", "/pm/paper/markets/0xabc/resolve"]) {
      for (const body of [{ nonsense: true }, { tokenId: "1", side: "buy", amount: "a\u0000" }]) {
        const res = await app.request(path, jsonBody(body));
        expect(res.status, path).toBe(401);
        expect((await json(res)).error).toBe("UNAUTHORIZED");
      }
    }
  });
});
