import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { call, publisherApp, seedAccount, seedConnection } from "../support.ts";

describe("Idempotency-Key across instances (PostgreSQL)", () => {
  test("20 concurrent copies of a schedule sent to two instances on their own pools make one post", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const other = await openSecondHandle(db, { maxConnections: 10 });
    try {
      const first = publisherApp(db).app;
      const second = publisherApp(other).app;
      const body = { text: "Two instances", connectionIds: [bluesky], scheduledFor: "2026-07-01T09:30:00Z" };
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          call(n % 2 === 0 ? first : second, "POST", "/api/v1/schedule", key, body, {
            "idempotency-key": "two-instances",
          }).then(async (res) => ({ status: res.status, body: await res.text() })),
        ),
      );
      const [{ n } = { n: -1 }] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM publisher.posts WHERE account_id = $1",
        [accountId],
      );
      expect(n).toBe(1);
      const made = answers.filter((answer) => answer.status === 200);
      expect(made.length).toBeGreaterThanOrEqual(1);
      expect(new Set(made.map((answer) => answer.body)).size).toBe(1);
      expect(answers.every((answer) => answer.status === 200 || answer.status === 409)).toBe(true);
    } finally {
      await other.close();
    }
  });
});
