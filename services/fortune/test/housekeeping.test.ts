import { createTextSealer } from "@app/core";
import { createDbStore } from "@app/payments";
import { migrateService } from "@app/runtime";
import { test } from "@app/testkit";
import { Store } from "mppx/server";
import { describe, expect } from "vitest";
import { fortuneService } from "../src/service.ts";
import { purgeExpired } from "../src/store/housekeeping.ts";

describe("housekeeping", () => {
  test("purges expired nonces and MPP replay markers past their challenges' lifetime, and nothing else", async ({
    db,
  }) => {
    await migrateService(fortuneService, db);
    const now = new Date("2026-11-22T12:00:00.000Z");
    const minute = 60_000;
    await db.query(
      `INSERT INTO fortune.siwx_spent_nonces (nonce, expires_at) VALUES ('expired', $1), ('live', $2)`,
      [new Date(now.getTime() - minute), new Date(now.getTime() + minute)],
    );
    // Written as the service writes them: through mppx's own replay claim, into the sealed store.
    const store = createDbStore({
      db,
      table: "fortune.mpp_store",
      sealer: createTextSealer("a-test-secret-of-at-least-32-characters", "fortune.mpp_store"),
    });
    expect(await Store.tryClaim(store, "mppx:charge:0xold", now.getTime() - minute)).toBe(true);
    expect(await Store.tryClaim(store, "mppx:charge:0xnew", now.getTime() + minute)).toBe(true);
    await store.put("0xchannel", { spent: 100n, highestVoucher: null });
    const sealed = await db.query<{ value: string }>("SELECT value FROM fortune.mpp_store");
    expect(sealed.every((row) => !row.value.includes("mppx:replay"))).toBe(true);
    expect(await purgeExpired(db, now)).toEqual({ nonces: 1, replayMarkers: 1, storedResponses: 0 });
    expect(await db.query("SELECT nonce FROM fortune.siwx_spent_nonces ORDER BY nonce")).toEqual([
      { nonce: "live" },
    ]);
    expect(await db.query("SELECT key FROM fortune.mpp_store ORDER BY key")).toEqual([
      { key: "0xchannel" },
      { key: "mppx:charge:0xnew" },
    ]);
  });
});
