import { apiKeyHash } from "@app/edge";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { jsonBody, marketsApp } from "../harness.ts";

describe("POST /pm/paper/accounts", () => {
  describe("success", () => {
    test("opens an account with 10,000 USD and shows its token once", async ({ db }) => {
      const res = await marketsApp(db).request("/pm/paper/accounts", jsonBody({ label: "momentum" }));
      expect(res.status).toBe(201);
      expect(res.headers.get("cache-control")).toBe("no-store");
      const body = await json(res);
      expect(body.account).toMatchObject({ label: "momentum", balance: "10000" });
      expect(body.account.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(body.token).toMatch(/^pmk_[A-Za-z0-9_-]{43}$/);
    });

    test("opens an account without a body", async ({ db }) => {
      const res = await marketsApp(db).request("/pm/paper/accounts", { method: "POST" });
      expect(res.status).toBe(201);
      expect((await json(res)).account.label).toBeNull();
    });
  });

  describe("errors", () => {
    test("refuses a label that is too long", async ({ db }) => {
      const res = await marketsApp(db).request("/pm/paper/accounts", jsonBody({ label: "x".repeat(65) }));
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("VALIDATION_FAILED");
    });

    test("refuses malformed JSON", async ({ db }) => {
      const res = await marketsApp(db).request("/pm/paper/accounts", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{",
      });
      expect(res.status).toBe(400);
      expect((await json(res)).error).toBe("MALFORMED_JSON");
    });
  });

  describe("security", () => {
    test("stores only the SHA-256 hash of the token", async ({ db }) => {
      const { account, token } = await json(await marketsApp(db).request("/pm/paper/accounts", jsonBody({})));
      const rows = await db.query<Record<string, unknown>>("SELECT * FROM markets.accounts WHERE id = $1", [
        account.id,
      ]);
      expect(rows[0]?.token_hash).toBe(apiKeyHash(token));
      expect(JSON.stringify(rows)).not.toContain(token);
    });

    test("gives every account a different token", async ({ db }) => {
      const app = marketsApp(db);
      const first = await json(await app.request("/pm/paper/accounts", jsonBody({})));
      const second = await json(await app.request("/pm/paper/accounts", jsonBody({})));
      expect(first.token).not.toBe(second.token);
      expect(first.account.id).not.toBe(second.account.id);
    });
  });
});
