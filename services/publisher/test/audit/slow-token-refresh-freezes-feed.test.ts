import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@app/core";
import { json, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { createTokenVault } from "../../src/connections/token-vault.ts";
import { createAdapters } from "../../src/platforms/index.ts";
import { upsertConnection } from "../../src/store/connections.ts";
import { fanOutEvents } from "../../src/webhooks/fan-out.ts";
import { testSealer } from "../publishing-support.ts";
import { call, publisherApp, seedAccount } from "../support.ts";
import { recordEvent } from "../webhooks-support.ts";

/**
 * Issue 18 audit, finding 1: an account points its Bluesky connection at a PDS it runs, which
 * never answers a session refresh. The refresh used to hold the connection's row lock (and so a
 * transaction id) for the platform client's whole timeout, and the events feed showed only events
 * older than every running transaction: every account's GET /api/v1/events and the webhooks'
 * fan-out saw nothing new meanwhile (on PGlite, whose one connection the transaction held, every
 * query waited).
 */

const PLATFORM_TIMEOUT_MS = 4_000;
const pdsCalls: string[] = [];
const hangingPds = createServer((req) => {
  pdsCalls.push(req.url ?? "");
});
let pdsUrl = "";

beforeAll(async () => {
  await new Promise<void>((resolve) => hangingPds.listen(0, "127.0.0.1", resolve));
  pdsUrl = `http://127.0.0.1:${(hangingPds.address() as AddressInfo).port}`;
});
afterAll(() => {
  hangingPds.closeAllConnections();
  hangingPds.close();
});

describe("a token refresh at a PDS that never answers", () => {
  test("freezes no other account's events feed nor the webhooks' fan-out, and holds no row lock", async ({
    db,
  }) => {
    const attacker = await seedAccount(db);
    const victim = await seedAccount(db);
    const sealer = testSealer();
    const { id: connectionId } = await db.transaction((tx) =>
      upsertConnection(
        tx,
        sealer,
        {
          accountId: attacker.accountId,
          platform: "bluesky",
          accountName: "evil.example",
          platformAccountId: "did:plc:evil",
          secrets: {
            accessToken: "a",
            refreshToken: "r",
            did: "did:plc:evil",
            service: pdsUrl,
            appPassword: "pw",
            expiresAt: new Date(Date.now() - 1000).toISOString(),
          },
        },
        new Date(),
      ),
    );
    const adapters = createAdapters({
      google: { authorizeBase: pdsUrl, tokenBase: pdsUrl, apiBase: pdsUrl, clientId: "x", clientSecret: "y" },
      tiktok: { authorizeBase: pdsUrl, apiBase: pdsUrl, clientKey: "x", clientSecret: "y" },
      timeoutMs: PLATFORM_TIMEOUT_MS,
    });
    const vault = createTokenVault({ db, sealer, adapters, clock: systemClock });
    const { app } = publisherApp(db);

    const refreshing = vault.open(connectionId).catch((error: unknown) => error);
    while (pdsCalls.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    const started = Date.now();
    const eventId = await recordEvent(db, victim.accountId, new Date());

    let seenAfterMs = -1;
    while (Date.now() - started < 2 * PLATFORM_TIMEOUT_MS) {
      const body = await json(await call(app, "GET", "/api/v1/events", victim.key));
      if ((body.events as Array<{ id: string }>).some((event) => event.id === eventId)) {
        seenAfterMs = Date.now() - started;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seenAfterMs).toBeGreaterThanOrEqual(0);
    expect(seenAfterMs).toBeLessThan(1_000);
    expect(await fanOutEvents(db, { now: new Date(), batch: 100 })).toMatchObject({ events: 1 });
    // The refresh holds no lock on the connection while it waits for the PDS: only its lease.
    const [lease] = await db.transaction((tx) =>
      tx.query<{ leased: boolean }>(
        "SELECT refresh_until > now() AS leased FROM publisher.connections WHERE id = $1 FOR UPDATE NOWAIT",
        [connectionId],
      ),
    );
    expect(lease?.leased).toBe(true);
    expect(Date.now() - started).toBeLessThan(PLATFORM_TIMEOUT_MS);

    const outcome = await refreshing;
    expect(outcome).toMatchObject({ kind: "transient", platform: "bluesky" });
    // The failed refresh ended its lease: the next caller refreshes at once, without waiting it out.
    const [after] = await db.query<{ refreshUntil: Date | null }>(
      `SELECT refresh_until AS "refreshUntil" FROM publisher.connections WHERE id = $1`,
      [connectionId],
    );
    expect(after?.refreshUntil).toBeNull();
  }, 30_000);
});
