import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { createSessionChannels, tempoClient } from "@app/payments";
import { captureLogs, json, test } from "@app/testkit";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, vi } from "vitest";
import { LOCAL_MPP_SECRET } from "../local/index.ts";
import { SessionBilling } from "../src/payments/session-billing.ts";
import { SessionSettler } from "../src/payments/session-settler.ts";
import { mppStore } from "../src/rails.ts";
import { SessionChannelStore } from "../src/store/session-channels.ts";
import { type FortuneHarness, PAYEE, spareAccount, startFortune } from "../testing/harness.ts";
import { advanceChainTime, promptBody, sessionKit } from "./session-support.ts";

/** The reserve's close grace period (TIP20ChannelReserve.CLOSE_GRACE_PERIOD). */
const GRACE_SECONDS = 900;
const TX_HASH = /^0x[0-9a-f]{64}$/;

// The periodic schedule is an hour away here: only a close request (or the test) settles a channel.
describe("MPP sessions: a payer's close request, and settlers sharing a database", () => {
  let h: FortuneHarness;
  const kit = () => sessionKit(h, spareAccount(7));

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_SESSION_SETTLE_SECONDS: "3600" });
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** Waits until the service has seen the close request and settled the channel in the ledger. */
  const settledAfterCloseRequest = (channelId: Hex, calls: number) =>
    vi.waitFor(
      async () => {
        const rows = await kit().ledgerRows(channelId);
        expect(rows).toHaveLength(calls);
        expect(rows.every((row) => row.state === "settled")).toBe(true);
      },
      { timeout: 25_000, interval: 200 },
    );

  test("a voucher on a close-requested channel gets a 402 with the reason; nothing is served or charged", async () => {
    const { session, channelId } = await kit().paidLlmCalls(2);
    await kit().payerCalls("requestClose", channelId);
    await settledAfterCloseRequest(channelId, 2);
    const before = { payee: await kit().payeeBalance(), rows: await kit().ledgerRows(channelId) };

    const refused = await session.fetch(`${h.url}/api/fortune/llm`, promptBody("one more"));
    expect(refused.status).toBe(402);
    expect((await json(refused)).detail).toMatch(/pending close request/);

    expect(await kit().ledgerRows(channelId)).toEqual(before.rows);
    expect(await kit().payeeBalance()).toBe(before.payee);
    const settled = await kit().events("Settled", channelId);
    expect(settled.map((event) => event.args.newSettled)).toEqual([2000n]);
    const record = await new SessionChannelStore(h.db).get(channelId);
    expect(record).toMatchObject({ accruedAtomic: 2000, settledAtomic: 2000, unsettledSince: null });
    expect(record?.closeRequestedAt).toBeInstanceOf(Date);
  });

  test("two settlers on one database settle a due channel once", async () => {
    const { channelId } = await kit().paidLlmCalls(3);
    const before = await kit().payeeBalance();
    const channels = createSessionChannels({
      store: mppStore(h.db, LOCAL_MPP_SECRET),
      client: tempoClient(h.tempo.rpcUrl, h.tempo.chainId),
      account: privateKeyToAccount(LOCAL_DEV_ACCOUNTS.mppOperator.privateKey),
      payee: PAYEE,
    });
    const { logger, lines } = captureLogs("debug");
    const settler = () =>
      new SessionSettler({
        db: h.db,
        channels,
        billing: new SessionBilling(h.db, channels),
        logger,
        intervalMs: 0,
      });

    const rounds = await Promise.all([settler().runOnce(), settler().runOnce()]);
    expect(rounds.flatMap((round) => round.settled)).toEqual([channelId]);
    expect(rounds.flatMap((round) => round.failed)).toEqual([]);

    const settled = await kit().events("Settled", channelId);
    expect(settled).toHaveLength(1);
    expect(settled[0]?.args.newSettled).toBe(3000n);
    expect((await kit().payeeBalance()) - before).toBe(3000n);
    const rows = await kit().ledgerRows(channelId);
    expect(rows.map((row) => [row.state, row.reference])).toEqual(
      Array(3).fill(["settled", settled[0]?.transactionHash]),
    );
    // Logged with the channel id, never a voucher signature (65 bytes of hex).
    expect(lines.some((line) => line.includes(channelId))).toBe(true);
    expect(lines.some((line) => /0x[0-9a-f]{130}/i.test(line))).toBe(false);
  });

  // Last in the file: it moves the chain's clock past the grace period.
  test("five paid calls, then the payer requests close: the service settles in time and withdraw refunds only the rest", async () => {
    const before = await kit().payeeBalance();
    const { channelId } = await kit().paidLlmCalls(5);
    const accrued = await kit().ledgerRows(channelId);
    expect(accrued.map((row) => [row.state, row.reference, row.cumulative, row.amount])).toEqual(
      [1, 2, 3, 4, 5].map((n) => ["accrued", channelId, n * 1000, 1000]),
    );

    await kit().payerCalls("requestClose", channelId);
    await settledAfterCloseRequest(channelId, 5);
    const [settled, ...more] = await kit().events("Settled", channelId);
    expect(more).toHaveLength(0);
    expect(settled?.args.newSettled).toBe(5000n);
    expect(settled?.transactionHash).toMatch(TX_HASH);
    const rows = await kit().ledgerRows(channelId);
    expect(rows.every((row) => row.reference === settled?.transactionHash)).toBe(true);

    await advanceChainTime(h, GRACE_SECONDS + 1);
    await kit().payerCalls("withdraw", channelId);
    const [closed] = await kit().events("ChannelClosed", channelId);
    expect(closed?.args.settledToPayee).toBe(5000n);
    expect((await kit().payeeBalance()) - before).toBe(5000n);
  });
});
