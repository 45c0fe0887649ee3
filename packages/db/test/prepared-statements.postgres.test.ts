import { openPostgres, type Queryable } from "@app/db";
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

  test("after another instance's migration changes a result column's type, a query outside a transaction is prepared afresh and answered", async ({
    db,
  }) => {
    // This instance: one connection, so the statement it prepared is the one it runs again.
    const [{ name } = { name: "" }] = await db.query<{ name: string }>("SELECT current_database() AS name");
    const url = new URL(process.env.TEST_DATABASE_URL as string);
    url.pathname = `/${name}`;
    const instance = await openPostgres(url.toString(), { maxConnections: 1 });
    try {
      await db.exec("CREATE TABLE public.retyped_probe (id int PRIMARY KEY, amount int NOT NULL)");
      await db.query("INSERT INTO public.retyped_probe (id, amount) VALUES ($1, $2)", [1, 5]);
      const read = "SELECT id, amount FROM public.retyped_probe WHERE id = $1";
      expect(await instance.query(read, [1])).toEqual([{ id: 1, amount: 5 }]);
      await db.exec("ALTER TABLE public.retyped_probe ALTER COLUMN amount TYPE int8");
      for (let run = 0; run < 3; run += 1) {
        expect(await instance.query(read, [1])).toEqual([{ id: 1, amount: 5 }]);
      }
    } finally {
      await instance.close();
    }
  });

  test("inside a transaction that refusal fails the transaction once: the next one on the same connection prepares the statement afresh", async ({
    db,
  }) => {
    await db.exec("CREATE TABLE public.retyped_in_tx (id int PRIMARY KEY, label varchar(10) NOT NULL)");
    await db.query("INSERT INTO public.retyped_in_tx (id, label) VALUES ($1, $2)", [1, "one"]);
    const read = "SELECT id, label FROM public.retyped_in_tx WHERE id = $1";
    const readTwiceAcrossAMigration = (tx: Queryable) =>
      tx
        .query(read, [1])
        .then(() => tx.exec("ALTER TABLE public.retyped_in_tx ALTER COLUMN label TYPE text"))
        .then(() => tx.query(read, [1]));
    await expect(db.transaction(readTwiceAcrossAMigration)).rejects.toThrow(
      /cached plan must not change result type/,
    );
    await db.exec("ALTER TABLE public.retyped_in_tx ALTER COLUMN label TYPE text");
    expect(await db.transaction((tx) => tx.query(read, [1]))).toEqual([{ id: 1, label: "one" }]);
  });
});
