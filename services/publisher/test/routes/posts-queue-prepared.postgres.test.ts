import { test } from "@app/testkit";
import { expect } from "vitest";
import { candidateSlots, DEFAULT_QUEUE_SETTINGS } from "../../src/domain/queue-slots.ts";
import { firstFreeSlot, lockQueueReadSettings } from "../../src/store/posts.ts";
import { seedAccount, seedConnection } from "../support.ts";

test("on PostgreSQL the queue's two lookup statements are prepared once per connection, and still find the slot", async ({
  db,
}) => {
  const { accountId } = await seedAccount(db);
  const connection = await seedConnection(db, accountId, "bluesky");
  const now = new Date("2026-03-07T12:00:00Z");
  const lookup = () =>
    db.transaction(async (tx) => {
      const settings = await lockQueueReadSettings(tx, accountId);
      const slot = await firstFreeSlot(tx, {
        accountId,
        connectionIds: [connection],
        at: candidateSlots({ now, settings }),
      });
      const prepared = await tx.query<{ name: string }>(
        "SELECT name FROM pg_prepared_statements WHERE name LIKE 'publisher_%' ORDER BY name",
      );
      return { settings, slot: slot?.toISOString(), prepared: prepared.map((row) => row.name) };
    });
  for (let run = 0; run < 3; run += 1) {
    expect(await lookup()).toEqual({
      settings: DEFAULT_QUEUE_SETTINGS,
      slot: "2026-03-08T09:00:00.000Z",
      prepared: ["publisher_first_free_slot", "publisher_queue_lock"],
    });
  }
});
