import { test } from "@app/testkit";
import { describe, expect } from "vitest";

describe("database handle", () => {
  test("returns the same JavaScript types on PGlite and PostgreSQL", async ({ db }) => {
    const [row] = await db.query<{ at: Date; big: number; amount: string; doc: unknown; flag: boolean }>(
      "SELECT '2026-01-02T03:04:05.678Z'::timestamptz AS at, 9007199254740991::int8 AS big, 0.001::numeric AS amount, '{\"a\":[1]}'::jsonb AS doc, true AS flag",
    );
    expect(row?.at).toBeInstanceOf(Date);
    expect(row?.at.toISOString()).toBe("2026-01-02T03:04:05.678Z");
    expect(row?.big).toBe(9007199254740991);
    expect(row?.amount).toBe("0.001");
    expect(row?.doc).toEqual({ a: [1] });
    expect(row?.flag).toBe(true);
  });

  test("commits a transaction that resolves and rolls back one that throws", async ({ db }) => {
    await db.exec("CREATE TABLE IF NOT EXISTS public.tx_test (n int)");
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO public.tx_test VALUES (1)");
    });
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO public.tx_test VALUES (2)");
        throw new Error("abort");
      }),
    ).rejects.toThrow("abort");
    expect(await db.query("SELECT n FROM public.tx_test ORDER BY n")).toEqual([{ n: 1 }]);
  });

  test("keeps concurrent transactions from losing updates", async ({ db }) => {
    await db.exec("CREATE TABLE IF NOT EXISTS public.counter (id int PRIMARY KEY, n int NOT NULL)");
    await db.query("INSERT INTO public.counter VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0");
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          const [row] = await tx.query<{ n: number }>("SELECT n FROM public.counter WHERE id = 1 FOR UPDATE");
          await tx.query("UPDATE public.counter SET n = $1 WHERE id = 1", [(row?.n ?? 0) + 1]);
        }),
      ),
    );
    expect(await db.query("SELECT n FROM public.counter WHERE id = 1")).toEqual([{ n: 20 }]);
  });
});
