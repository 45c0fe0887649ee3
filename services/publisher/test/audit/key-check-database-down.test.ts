/**
 * When the database under a key's check fails (the key lookup, the rate limiter's count), the
 * caller is told to come back (503 `NOT_READY` with `Retry-After`), the failure is logged without
 * the key, and no stack or driver message reaches the body: never a bare 500.
 */
import type { Database } from "@app/db";
import { captureLogs, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { publisherApp, seedAccount } from "../support.ts";

/** The database, refusing every statement that matches `pattern` as a server that went away would. */
function refusing(db: Database, pattern: RegExp): Database {
  const query: Database["query"] = async (sql, params, options) => {
    if (pattern.test(sql)) {
      throw Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    }
    return db.query(sql, params, options);
  };
  return Object.assign(Object.create(db) as Database, { query });
}

describe("a key's check with its database down", () => {
  for (const [what, pattern] of [
    ["the rate limiter's count", /rate_limit_windows/],
    ["the key's lookup", /FROM publisher\.api_keys/],
  ] as const) {
    test(`${what} failing is a 503 NOT_READY with Retry-After, logged without the key`, async ({ db }) => {
      const account = await seedAccount(db);
      const { logger, lines } = captureLogs();
      const { app } = publisherApp(refusing(db, pattern), { logger });
      const res = await app.request("/api/v1/posts", { headers: { "x-api-key": account.key } });
      const body = await res.text();
      expect(res.status).toBe(503);
      expect(res.headers.get("retry-after")).toBe("5");
      expect(JSON.parse(body)).toMatchObject({ error: "NOT_READY" });
      expect(body).not.toMatch(/ECONNREFUSED|\.ts:\d/);
      const logged = lines.join("\n");
      expect(logged).toContain("ECONNREFUSED");
      expect(logged).not.toContain(account.key);
    });
  }
});
