import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { jsonBody, marketsApp } from "../harness.ts";

/** Attack: a NUL in a paper account's label was a 500 (PostgreSQL refuses the byte), no key needed. */
describe("audit: a NUL or an unpaired surrogate in a paper account's label", () => {
  test("is a 400 naming the label, and no account is opened", async ({ db }) => {
    for (const label of ["a\u0000b", "lone \uD800 half"]) {
      const res = await marketsApp(db).request("/pm/paper/accounts", jsonBody({ label }));
      expect(res.status).toBe(400);
      expect(await json(res)).toMatchObject({ error: "VALIDATION_FAILED", issues: [{ path: "label" }] });
    }
    const [row] = await db.query<{ count: number }>("SELECT count(*)::int AS count FROM markets.accounts");
    expect(row?.count).toBe(0);
  });
});
