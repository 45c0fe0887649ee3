import { migrateService } from "@app/runtime";
import { test } from "@app/testkit";
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
      `INSERT INTO fortune.siwx_nonces (nonce, issued_at, expires_at) VALUES
         ('expired', $1, $2), ('live', $1, $3)`,
      [
        new Date(now.getTime() - 10 * minute),
        new Date(now.getTime() - minute),
        new Date(now.getTime() + minute),
      ],
    );
    const marker = (expires: number) => JSON.stringify({ expires, type: "mppx:replay" });
    await db.query(
      `INSERT INTO fortune.mpp_store (key, value) VALUES
         ('mppx:charge:0xold', $1), ('mppx:charge:0xnew', $2), ('0xchannel', $3)`,
      [
        marker(now.getTime() - minute),
        marker(now.getTime() + minute),
        JSON.stringify({ spent: "100#__bigint" }),
      ],
    );
    expect(await purgeExpired(db, now)).toEqual({ nonces: 1, replayMarkers: 1 });
    expect(await db.query("SELECT nonce FROM fortune.siwx_nonces ORDER BY nonce")).toEqual([
      { nonce: "live" },
    ]);
    expect(await db.query("SELECT key FROM fortune.mpp_store ORDER BY key")).toEqual([
      { key: "0xchannel" },
      { key: "mppx:charge:0xnew" },
    ]);
  });
});
