/**
 * Audit 4: hazards of `query(sql, params, { prepareAs })` itself on PostgreSQL, none reachable from
 * today's two call sites (short names, string and number values only): a value node-postgres could
 * not serialise closed the name on the server while the client still counted it as prepared; a
 * renewed name (`x_1`) could be another statement's; a name over 63 bytes was cut by PostgreSQL, so
 * its renewal was the same statement. Now: renewed after a client-side failure, renewals are
 * `x__1` and names are checked (lower_snake_case, no `__`, at most 40 characters).
 */
import type { Queryable } from "@app/db";
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";

const oneConnection = (db: Queryable) => openSecondHandle(db, { maxConnections: 1 });

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => "ok",
    (error: Error & { code?: string }) => `${error.code ?? ""} ${error.message}`.trim(),
  );

describe("audit 4: prepareAs hazards", () => {
  test("a value node-postgres cannot serialise fails its own call only (no Close poisoning the name)", async ({
    db,
  }) => {
    const instance = await oneConnection(db);
    try {
      const sql = "SELECT $1::jsonb AS detail";
      const options = { prepareAs: "audit4_serialise" };
      expect(await outcome(instance.transaction((tx) => tx.query(sql, ['{"a":1}'], options)))).toBe("ok");
      const bad = await outcome(instance.transaction((tx) => tx.query(sql, [{ amount: 10n }], options)));
      expect(bad).toMatch(/BigInt/);
      const later: string[] = [];
      for (let n = 0; n < 3; n += 1) {
        later.push(await outcome(instance.transaction((tx) => tx.query(sql, ['{"a":2}'], options))));
      }
      expect(later).toEqual(["ok", "ok", "ok"]);
    } finally {
      await instance.close();
    }
  });

  // In transactions: outside one, pg-pool discards a connection after any error, stale statement and all.
  test("after a renewal, the renewed name does not collide with another statement's name", async ({ db }) => {
    const instance = await oneConnection(db);
    try {
      await db.exec("CREATE TABLE public.audit4_renamed (id int PRIMARY KEY, label varchar(10) NOT NULL)");
      await db.exec("INSERT INTO public.audit4_renamed VALUES (1, 'one')");
      const read = "SELECT id, label FROM public.audit4_renamed WHERE id = $1::int";
      const other = "SELECT $1::int + 1 AS next";
      const run = (sql: string, prepareAs: string) =>
        outcome(instance.transaction((tx) => tx.query(sql, [1], { prepareAs })));
      expect(await run(read, "audit4_read")).toBe("ok");
      // Another hot statement whose chosen name happens to be audit4_read_1.
      expect(await run(other, "audit4_read_1")).toBe("ok");
      await db.exec("ALTER TABLE public.audit4_renamed ALTER COLUMN label TYPE text");
      // Documented: the first transaction after the migration fails.
      expect(await run(read, "audit4_read")).toMatch(/cached plan must not change result type/);
      const after: string[] = [];
      for (let n = 0; n < 3; n += 1) after.push(await run(read, "audit4_read"));
      after.push(await run(other, "audit4_read_1"));
      expect(after).toEqual(["ok", "ok", "ok", "ok"]);
    } finally {
      await instance.close();
    }
  });

  test("a name PostgreSQL would cut short (it keeps 63 bytes), or one holding the renewal separator, is refused", async ({
    db,
  }) => {
    for (const prepareAs of [`audit4_${"x".repeat(60)}`, "audit4__1", "Audit4", "audit4-x"]) {
      await expect(db.query("SELECT $1::int AS n", [1], { prepareAs })).rejects.toThrow(
        /prepareAs must be lower_snake_case of at most 40 characters/,
      );
    }
  });
});
