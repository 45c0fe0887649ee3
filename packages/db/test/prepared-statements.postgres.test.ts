import type { Queryable } from "@app/db";
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";

/** How many statements are prepared on the transaction's own connection under `name`. */
const preparedUnder = "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name = $1";

/** A second handle on the test's database with one connection: what a statement prepared is run on again. */
const oneConnection = (db: Queryable) => openSecondHandle(db, { maxConnections: 1 });

describe("statements prepared by name on PostgreSQL (prepareAs)", () => {
  test("a statement given a name is prepared once on a connection and then only run", async ({ db }) => {
    const sql = "SELECT $1::int + 1 AS next";
    const seen = await db.transaction(async (tx) => {
      const first = await tx.query<{ next: number }>(sql, [1], { prepareAs: "probe_next" });
      const second = await tx.query<{ next: number }>(sql, [41], { prepareAs: "probe_next" });
      const [prepared] = await tx.query<{ n: number }>(preparedUnder, ["probe_next"]);
      return { first, second, prepared: prepared?.n };
    });
    expect(seen).toEqual({ first: [{ next: 2 }], second: [{ next: 42 }], prepared: 1 });
  });

  test("every other statement goes unnamed", async ({ db }) => {
    const prepared = await db.transaction(async (tx) => {
      await tx.query("SELECT $1::int AS unnamed_probe", [7]);
      const sql = "SELECT count(*)::int AS n FROM pg_prepared_statements WHERE statement LIKE $1";
      return (await tx.query<{ n: number }>(sql, ["%unnamed_probe%"]))[0]?.n;
    });
    expect(prepared).toBe(0);
  });

  test("after another instance's migration retypes a result column, a query outside a transaction is answered", async ({
    db,
  }) => {
    const instance = await oneConnection(db);
    try {
      await db.exec("CREATE TABLE public.retyped_probe (id int PRIMARY KEY, amount int NOT NULL)");
      await db.exec("INSERT INTO public.retyped_probe VALUES (1, 5)");
      const read = "SELECT id, amount FROM public.retyped_probe WHERE id = $1::int";
      const options = { prepareAs: "probe_retyped" };
      expect(await instance.query(read, [1], options)).toEqual([{ id: 1, amount: 5 }]);
      await db.exec("ALTER TABLE public.retyped_probe ALTER COLUMN amount TYPE int8");
      for (let run = 0; run < 3; run += 1) {
        expect(await instance.query(read, [1], options)).toEqual([{ id: 1, amount: 5 }]);
      }
    } finally {
      await instance.close();
    }
  });

  test("inside transactions that refusal fails one transaction; the next prepares the statement afresh", async ({
    db,
  }) => {
    const instance = await oneConnection(db);
    try {
      await db.exec("CREATE TABLE public.retyped_in_tx (id int PRIMARY KEY, label varchar(10) NOT NULL)");
      await db.exec("INSERT INTO public.retyped_in_tx VALUES (1, 'one')");
      const read = "SELECT id, label FROM public.retyped_in_tx WHERE id = $1::int";
      const options = { prepareAs: "probe_retyped_in_tx" };
      await instance.transaction((tx) => tx.query(read, [1], options));
      await db.exec("ALTER TABLE public.retyped_in_tx ALTER COLUMN label TYPE text");
      await expect(instance.transaction((tx) => tx.query(read, [1], options))).rejects.toThrow(
        /cached plan must not change result type/,
      );
      for (let run = 0; run < 3; run += 1) {
        expect(await instance.transaction((tx) => tx.query(read, [1], options))).toEqual([
          { id: 1, label: "one" },
        ]);
      }
    } finally {
      await instance.close();
    }
  });
});
