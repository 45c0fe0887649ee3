import { holdTransaction, openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createEndpoint, deleteEndpoint } from "../../src/webhooks/endpoint-store.ts";
import { fanOutEvents } from "../../src/webhooks/fan-out.ts";
import { waitForLockWait } from "../publishing-support.ts";
import { seedAccount } from "../support.ts";
import { recordEvent, testWebhookSealer } from "../webhooks-support.ts";

/**
 * Deleting an endpoint locks its row as a key change does, which conflicts with the key-share
 * lock a new delivery's foreign key takes on it. A fan-out that made a delivery for an endpoint
 * being deleted failed with a foreign-key violation once the deletion committed, and with it the
 * whole batch (every account's events). PostgreSQL only: on PGlite every transaction runs alone.
 */
describe("an endpoint deleted while the outbox is fanned out", () => {
  test("the fan-out waits for the deletion and leaves the deleted endpoint out; the others get their deliveries", async ({
    db,
  }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const { accountId } = await seedAccount(db);
    const sealer = testWebhookSealer();
    const created = new Date(Date.now() - 60_000);
    const made = await Promise.all(
      ["https://hooks.example.com/going", "https://hooks.example.com/staying"].map((url) =>
        createEndpoint(db, sealer, { accountId, url }, created),
      ),
    );
    const [going, staying] = made.map((result) => (result === "limit" ? "" : result.endpoint.id));
    await recordEvent(db, accountId, new Date());
    const other = await openSecondHandle(db);
    const deletion = holdTransaction(other);
    try {
      expect(await deleteEndpoint(await deletion.tx, accountId, going ?? "")).toBe(true);
      const fanOut = fanOutEvents(db, { now: new Date(), batch: 100 });
      await waitForLockWait(db, "INSERT INTO publisher.webhook_deliveries");
      await deletion.commit();

      expect(await fanOut).toEqual({ events: 1, deliveries: 1 });
      const deliveries = await db.query<{ endpointId: string }>(
        `SELECT endpoint_id AS "endpointId" FROM publisher.webhook_deliveries`,
      );
      expect(deliveries).toEqual([{ endpointId: staying }]);
    } finally {
      await deletion.rollback();
      await other.close();
    }
  });
});
