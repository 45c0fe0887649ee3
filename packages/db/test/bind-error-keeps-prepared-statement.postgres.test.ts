/**
 * Audit 3, kept as a guard: node-postgres serialises the values while it writes Bind, and when that
 * throws (a value JSON.stringify refuses) it sends Close for the statement's name. While @app/db
 * named every parameterised statement (reverted), that dropped the server's prepared statement
 * while the client still counted it as parsed: every later query of the same text on that
 * connection was refused ("prepared statement … does not exist"), so one caller's bad value broke
 * other callers. Unnamed statements close nothing that matters.
 */
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";

describe("audit 3: a value pg cannot serialise, in a transaction", () => {
  test("fails its own call only; the next transaction running the same statement with good values succeeds", async ({
    db,
  }) => {
    const instance = await openSecondHandle(db, { maxConnections: 1 });
    try {
      await db.exec("CREATE TABLE public.audit3_events (id int PRIMARY KEY, detail jsonb NOT NULL)");
      const insert = "INSERT INTO public.audit3_events (id, detail) VALUES ($1, $2)";
      await instance.transaction((tx) => tx.query(insert, [1, JSON.stringify({ amount: "1" })]));
      // One caller's mistake: an object holding a bigint (JSON.stringify throws a TypeError).
      await expect(instance.transaction((tx) => tx.query(insert, [2, { amount: 10n }]))).rejects.toThrow(
        /BigInt/,
      );
      // Everyone else, later, with good values, on the same (only) connection.
      const outcomes: string[] = [];
      for (let id = 3; id < 6; id += 1) {
        outcomes.push(
          await instance
            .transaction((tx) => tx.query(insert, [id, JSON.stringify({ amount: "3" })]))
            .then(
              () => "ok",
              (error: Error) => error.message,
            ),
        );
      }
      expect(outcomes).toEqual(["ok", "ok", "ok"]);
    } finally {
      await instance.close();
    }
  });
});
