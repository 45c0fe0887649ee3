/**
 * Audit 4 (held, kept as a guard): values the server refuses at Bind (NUL, NaN) or that the driver
 * rewrites (lone surrogate) on the two named queue statements, on their connection's first use of
 * the name: the caller fails alone; later callers on the same (only) connection are answered.
 */
import { openSecondHandle, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { candidateSlots, DEFAULT_QUEUE_SETTINGS } from "../../src/domain/queue-slots.ts";
import { firstFreeSlot, lockQueueReadSettings } from "../../src/store/posts.ts";
import { seedAccount, seedConnection } from "../support.ts";

describe("audit 4: bind errors on the named queue statements", () => {
  test("a refused value fails its own transaction only", async ({ db }) => {
    const instance = await openSecondHandle(db, { maxConnections: 1 });
    try {
      const { accountId } = await seedAccount(db);
      const connection = await seedConnection(db, accountId, "bluesky");
      const at = candidateSlots({ now: new Date("2026-03-07T12:00:00Z"), settings: DEFAULT_QUEUE_SETTINGS });
      const good = () =>
        instance.transaction(async (tx) => {
          await lockQueueReadSettings(tx, accountId);
          return firstFreeSlot(tx, { accountId, connectionIds: [connection], at });
        });
      const outcome = (p: Promise<unknown>) =>
        p.then(
          () => "ok",
          (error: Error & { code?: string }) => error.code ?? error.message,
        );
      const bad = [
        () => instance.transaction((tx) => lockQueueReadSettings(tx, "acct\u0000x")),
        () =>
          instance.transaction((tx) =>
            firstFreeSlot(tx, { accountId: "a\u0000", connectionIds: [connection], at }),
          ),
        () => instance.transaction((tx) => firstFreeSlot(tx, { accountId, connectionIds: ["c\u0000"], at })),
        () =>
          instance.transaction((tx) =>
            firstFreeSlot(tx, { accountId, connectionIds: [connection], at: [new Date(Number.NaN)] }),
          ),
        () => instance.transaction((tx) => lockQueueReadSettings(tx, "acct\ud800")),
        () =>
          instance.transaction((tx) =>
            firstFreeSlot(tx, { accountId: "\udfff", connectionIds: ["\ud800"], at }),
          ),
      ];
      const seen: string[] = [];
      for (const attempt of bad) {
        seen.push(await outcome(attempt()));
        seen.push(await outcome(good()));
      }
      console.log(seen);
      expect(seen.filter((_, i) => i % 2 === 1)).toEqual(Array(bad.length).fill("ok"));
    } finally {
      await instance.close();
    }
  });
});
