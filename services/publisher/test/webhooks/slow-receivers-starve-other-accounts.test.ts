import type { Database } from "@app/db";
import { type FakeClock, test } from "@app/testkit";
import { describe, expect } from "vitest";
import {
  type ClaimedDelivery,
  type ClaimLimits,
  claimDueDeliveries,
} from "../../src/webhooks/delivery-store.ts";
import { createEndpoint } from "../../src/webhooks/endpoint-store.ts";
import { createFakeSender } from "../../src/webhooks/sender.fake.ts";
import { seedAccount } from "../support.ts";
import { fanOutAll, recordEvent, testWebhookSealer, testWorker, webhookApp } from "../webhooks-support.ts";

const LEASE_MS = 60_000;

/** An account with `endpoints` endpoints (their ids), each to receive what the account's events are. */
async function accountWithEndpoints(db: Database, clock: FakeClock, endpoints: number) {
  const account = await seedAccount(db);
  const ids: string[] = [];
  for (let index = 0; index < endpoints; index += 1) {
    const made = await createEndpoint(
      db,
      testWebhookSealer(),
      { accountId: account.accountId, url: `https://hooks.example.com/${index}` },
      clock.now(),
    );
    if (made === "limit") throw new Error("endpoint limit");
    ids.push(made.endpoint.id);
  }
  return { ...account, endpointIds: ids };
}

/** Records `count` events of the account, each fanned out a millisecond after the one before. */
async function recordEvents(db: Database, clock: FakeClock, accountId: string, count: number) {
  const worker = testWorker(db, { sender: createFakeSender(), clock });
  for (let index = 0; index < count; index += 1) {
    await recordEvent(db, accountId, clock.now());
    await fanOutAll(db, worker);
    clock.advance(1);
  }
}

/** How many of the claimed deliveries are for each account's endpoints. */
async function claimedByAccount(db: Database, claimed: ClaimedDelivery[]): Promise<Record<string, number>> {
  const ids = claimed.map((delivery) => delivery.id);
  const rows = await db.query<{ account: string; n: number }>(
    `SELECT w.account_id AS account, count(*)::int AS n FROM publisher.webhook_deliveries d
     JOIN publisher.webhook_endpoints w ON w.id = d.endpoint_id WHERE d.id = ANY($1) GROUP BY w.account_id`,
    [ids],
  );
  return Object.fromEntries(rows.map((row) => [row.account, row.n]));
}

function claim(
  db: Database,
  clock: FakeClock,
  limits: ClaimLimits & { perEndpoint: number; perAccount: number },
) {
  const now = clock.now();
  return claimDueDeliveries(db, {
    workerId: "w1",
    now,
    leaseUntil: new Date(now.getTime() + LEASE_MS),
    ...limits,
  });
}

/**
 * Audit of issue 18, finding 2: one account's endpoints at receivers that never answer held every
 * delivery slot, and another account's delivery waited behind them (the claim took the oldest due
 * deliveries, whoever they were for). The claim now shares: at most `perEndpoint` deliveries in
 * flight per endpoint and `perAccount` per account (leases of every worker counted), accounts
 * served in turn.
 */
describe("slow receivers starving other accounts' webhooks", () => {
  test("the oldest backlog of one account does not fill a claim: accounts are served in turn", async ({
    db,
  }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const { clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    const attacker = await accountWithEndpoints(db, clock, 20);
    const victim = await accountWithEndpoints(db, clock, 1);
    clock.advance(1_000);
    await recordEvents(db, clock, attacker.accountId, 3);
    clock.advance(1_000);
    await recordEvents(db, clock, victim.accountId, 1);
    clock.advance(1_000);

    const claimed = await claim(db, clock, { limit: 4, perEndpoint: 2, perAccount: 2 });
    const shares = await claimedByAccount(db, claimed);
    expect(shares[victim.accountId]).toBe(1);
    expect(shares[attacker.accountId]).toBe(2);
  });

  test("an account holding its share of leases gets no more until they end; others still get theirs", async ({
    db,
  }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const { clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    const attacker = await accountWithEndpoints(db, clock, 20);
    const victim = await accountWithEndpoints(db, clock, 1);
    clock.advance(1_000);
    await recordEvents(db, clock, attacker.accountId, 3);
    const limits = { limit: 4, perEndpoint: 2, perAccount: 2 };

    // The attacker's hanging attempts: its share, not every slot.
    const hanging = await claim(db, clock, limits);
    expect(hanging).toHaveLength(2);
    expect(await claim(db, clock, limits)).toEqual([]);

    // The victim's event arrives while they hang: a slot is there for it.
    clock.advance(1_000);
    await recordEvents(db, clock, victim.accountId, 1);
    const next = await claim(db, clock, limits);
    expect(await claimedByAccount(db, next)).toEqual({ [victim.accountId]: 1 });

    // Once the attacker's leases end (their worker gone), its deliveries are claimed again.
    clock.advance(LEASE_MS + 1);
    const after = await claim(db, clock, limits);
    expect((await claimedByAccount(db, after))[attacker.accountId]).toBe(2);
  });

  test("a process holds an account to its own share, counting what it holds already, whatever the shared caps allow", async ({
    db,
  }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const { clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    const busy = await accountWithEndpoints(db, clock, 4);
    const other = await accountWithEndpoints(db, clock, 1);
    clock.advance(1_000);
    await recordEvents(db, clock, busy.accountId, 3);
    await recordEvents(db, clock, other.accountId, 2);
    clock.advance(1_000);
    const shared = { limit: 50, perEndpoint: 50, perAccount: 50 };

    // The process already holds one of the busy account's deliveries and two of the other's.
    const held = new Map([
      [busy.accountId, 1],
      [other.accountId, 2],
    ]);
    const claimed = await claim(db, clock, { ...shared, processShare: { perAccount: 3, held } });
    expect(await claimedByAccount(db, claimed)).toEqual({ [busy.accountId]: 2, [other.accountId]: 1 });

    // Another process, holding nothing, takes its own share of what is left.
    const elsewhere = await claim(db, clock, { ...shared, processShare: { perAccount: 3, held: new Map() } });
    expect(await claimedByAccount(db, elsewhere)).toEqual({ [busy.accountId]: 3, [other.accountId]: 1 });
  });

  test("one endpoint has at most its share in flight, the oldest due first", async ({ db }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const { clock } = webhookApp(db, { now: "2026-06-15T06:00:00Z" });
    const owner = await accountWithEndpoints(db, clock, 2);
    clock.advance(1_000);
    await recordEvents(db, clock, owner.accountId, 5);
    const limits = { limit: 50, perEndpoint: 2, perAccount: 50 };

    const first = await claim(db, clock, limits);
    const perEndpoint = (claimed: ClaimedDelivery[]) =>
      Object.values(Object.groupBy(claimed, (delivery) => delivery.endpoint.endpointId)).map(
        (g) => g?.length,
      );
    expect(perEndpoint(first)).toEqual([2, 2]);
    expect(await claim(db, clock, limits)).toEqual([]);
    const events = await db.query<{ id: string }>(
      "SELECT id FROM publisher.events WHERE account_id = $1 ORDER BY seq",
      [owner.accountId],
    );
    expect(new Set(first.map((delivery) => delivery.event.id))).toEqual(
      new Set(events.slice(0, 2).map((event) => event.id)),
    );
  });
});
