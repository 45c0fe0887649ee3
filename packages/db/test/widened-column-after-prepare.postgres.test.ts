/**
 * Audit 3, kept as a guard: while @app/db sent every parameterised statement as a named prepared
 * statement (reverted), a statement kept the parameter types PostgreSQL inferred when it was first
 * parsed: after another instance's migration widened a column (int → int8), writes of values that
 * fit the new column were refused as out of range for `integer`, in every transaction on that
 * connection. Statements now go unnamed, so each query takes the column's current type.
 */
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";

describe("audit 3: parameter types of a prepared statement after a migration", () => {
  test("after another instance widens a column to int8, this instance's writes of int8 values succeed", async ({
    db,
  }) => {
    const instance = await openSecondHandle(db, { maxConnections: 1 });
    try {
      await db.exec("CREATE TABLE public.audit3_widened (id int PRIMARY KEY, amount int NOT NULL)");
      const insert = "INSERT INTO public.audit3_widened (id, amount) VALUES ($1, $2)";
      const update = "UPDATE public.audit3_widened SET amount = $2 WHERE id = $1";
      // This instance writes before the migration, in transactions (as the services' stores do):
      // both statements are prepared on its one connection.
      await instance.transaction((tx) => tx.query(insert, [1, 5]));
      await instance.transaction((tx) => tx.query(update, [1, 6]));
      // Another instance's migration: amounts may now pass 2^31.
      await db.exec("ALTER TABLE public.audit3_widened ALTER COLUMN amount TYPE int8");
      // The other instance (its own connections) can write such an amount.
      await db.query(insert, [2, 5_000_000_000]);
      const outcomes: string[] = [];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        outcomes.push(
          await instance
            .transaction((tx) => tx.query(update, [1, 5_000_000_000]))
            .then(
              () => "ok",
              (error: Error) => error.message,
            ),
        );
        outcomes.push(
          await instance
            .transaction((tx) => tx.query(insert, [10 + attempt, 5_000_000_000]))
            .then(
              () => "ok",
              (error: Error) => error.message,
            ),
        );
      }
      expect(outcomes).toEqual(["ok", "ok", "ok", "ok", "ok", "ok"]);
    } finally {
      await instance.close();
    }
  });
});
