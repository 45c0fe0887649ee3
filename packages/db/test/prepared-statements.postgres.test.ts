import { test } from "@app/testkit";
import { describe, expect } from "vitest";

/** The statements prepared on the transaction's own connection whose text is `sql`. */
const preparedAs = `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement = $1`;

describe("prepared statements on PostgreSQL", () => {
  test("a parameterised statement is prepared once on a connection and run again without a new parse", async ({
    db,
  }) => {
    const sql = "SELECT $1::int + 1 AS next";
    const counts = await db.transaction(async (tx) => {
      const first = await tx.query<{ next: number }>(sql, [1]);
      const second = await tx.query<{ next: number }>(sql, [41]);
      const [prepared] = await tx.query<{ n: number }>(preparedAs, [sql]);
      return { first, second, prepared: prepared?.n };
    });
    expect(counts.first).toEqual([{ next: 2 }]);
    expect(counts.second).toEqual([{ next: 42 }]);
    expect(counts.prepared).toBe(1);
  });

  test("a statement without parameters is not prepared", async ({ db }) => {
    const sql = "SELECT 7 AS seven";
    const prepared = await db.transaction(async (tx) => {
      await tx.query(sql);
      return (await tx.query<{ n: number }>(preparedAs, [sql]))[0]?.n;
    });
    expect(prepared).toBe(0);
  });

  test("a statement that fails to parse fails the same way every time, and others still run", async ({
    db,
  }) => {
    const broken = "SELECT $1::int FROM nowhere_at_all";
    for (let attempt = 0; attempt < 3; attempt += 1) {
      await expect(db.query(broken, [1])).rejects.toThrow(/relation "nowhere_at_all" does not exist/);
    }
    expect(await db.query<{ n: number }>("SELECT $1::int AS n", [5])).toEqual([{ n: 5 }]);
  });

  test("a statement prepared before a migration adds a column still runs after it", async ({ db }) => {
    await db.exec("CREATE TABLE public.prepared_probe (id int PRIMARY KEY, name text NOT NULL)");
    await db.query("INSERT INTO public.prepared_probe (id, name) VALUES ($1, $2)", [1, "one"]);
    const read = "SELECT id, name FROM public.prepared_probe WHERE id = $1";
    const runs = await db.transaction(async (tx) => {
      const before = await tx.query(read, [1]);
      await tx.exec("ALTER TABLE public.prepared_probe ADD COLUMN extra text");
      const after = await tx.query(read, [1]);
      return { before, after };
    });
    expect(runs.before).toEqual([{ id: 1, name: "one" }]);
    expect(runs.after).toEqual([{ id: 1, name: "one" }]);
  });
});
