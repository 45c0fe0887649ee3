import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { systemClock } from "@app/core";
import { silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createWebhookWorker } from "../../src/webhooks/delivery-worker.ts";
import { createEndpoint } from "../../src/webhooks/endpoint-store.ts";
import { createGuardedSender } from "../../src/webhooks/guarded-post.ts";
import { seedAccount } from "../support.ts";
import { recordEvent, startReceiver, testWebhookSealer } from "../webhooks-support.ts";

const SLOTS = 4;
/** The receivers' time limit here (15 s in production: guarded-post.ts). */
const TIMEOUT_MS = 2_000;

async function waitFor(check: () => boolean, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!check() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Audit of issue 18, finding 2, end to end on PostgreSQL (real worker loop, real sender): an
 * account's 20 endpoints at a receiver that never answers, with a few events each, held every slot
 * of the worker, and another account's webhook waited for their timeouts (15 s each in
 * production). It now goes out while they hang.
 */
describe("slow receivers starving other accounts' webhooks (worker loop)", () => {
  test("another account's delivery goes out while one account's receivers hang", { timeout: 60_000 }, async ({
    db,
  }) => {
    await db.query("DELETE FROM publisher.webhook_endpoints");
    const hanging: unknown[] = [];
    const slow = createServer((request) => hanging.push(request));
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    const slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}/hooks`;
    const fast = await startReceiver();
    const sealer = testWebhookSealer();
    const attacker = await seedAccount(db);
    const victim = await seedAccount(db);
    const created = new Date(Date.now() - 60_000);
    for (let index = 0; index < 20; index += 1) {
      await createEndpoint(
        db,
        sealer,
        { accountId: attacker.accountId, url: `${slowUrl}?${index}` },
        created,
      );
    }
    await createEndpoint(db, sealer, { accountId: victim.accountId, url: fast.url }, created);
    const worker = createWebhookWorker({
      db,
      logger: silentLogger(),
      clock: systemClock,
      sender: createGuardedSender({ allowPrivate: true }, { timeoutMs: TIMEOUT_MS, excerptBytes: 100 }),
      sealer,
      workerId: "w1",
    });
    for (let index = 0; index < 3; index += 1) await recordEvent(db, attacker.accountId, new Date());
    const loop = worker.start({ concurrency: SLOTS, pollIntervalMs: 50 });
    try {
      // The attacker's attempts hang first…
      await waitFor(() => hanging.length > 0, 20_000);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(hanging.length).toBeLessThan(SLOTS);
      // … then the victim's event happens.
      const at = Date.now();
      await recordEvent(db, victim.accountId, new Date());
      await waitFor(() => fast.received.length > 0, 4 * TIMEOUT_MS);
      expect(fast.received).toHaveLength(1);
      expect(Date.now() - at).toBeLessThan(TIMEOUT_MS);
    } finally {
      await loop.stop();
      slow.closeAllConnections();
      slow.close();
      await fast.kill();
    }
  });
});
