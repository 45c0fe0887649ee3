import { test } from "@app/testkit";
import type { Hex } from "viem";
import { afterAll, describe, expect, vi } from "vitest";
import { SessionChannelStore } from "../src/store/session-channels.ts";
import { type FortuneHarness, spareAccount, startFortune } from "../testing/harness.ts";
import { promptBody, sessionKit } from "./session-support.ts";

describe("MPP sessions: the periodic settler", () => {
  let h: FortuneHarness;
  const kit = () => sessionKit(h, spareAccount(8));

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db, { FORTUNE_SESSION_SETTLE_SECONDS: "1" });
  });
  afterAll(async () => {
    await h?.stop();
  });

  /** Waits until every session row of the channel is settled (bounded, not a measure of speed). */
  const allSettled = (channelId: Hex, calls: number) =>
    vi.waitFor(
      async () => {
        const rows = await kit().ledgerRows(channelId);
        expect(rows).toHaveLength(calls);
        expect(rows.every((row) => row.state === "settled")).toBe(true);
      },
      { timeout: 25_000, interval: 200 },
    );

  test("a channel left idle with unsettled vouchers is settled; later calls are settled again, close pays the rest", async () => {
    const before = await kit().payeeBalance();
    const { session, channelId } = await kit().paidLlmCalls(2);
    await allSettled(channelId, 2);

    const first = await kit().events("Settled", channelId);
    const last = first.at(-1);
    expect(last?.args.newSettled).toBe(2000n);
    expect((await kit().payeeBalance()) - before).toBe(2000n);
    const rows = await kit().ledgerRows(channelId);
    const hashes = first.map((event) => event.transactionHash);
    expect(rows.every((row) => row.reference !== null && hashes.includes(row.reference as Hex))).toBe(true);
    expect(await new SessionChannelStore(h.db).get(channelId)).toMatchObject({
      accruedAtomic: 2000,
      settledAtomic: 2000,
      settlementTx: last?.transactionHash,
      unsettledSince: null,
      closeRequestedAt: null,
      failures: 0,
    });

    // The channel stays open: a third call accrues and is settled by a later round.
    const third = await session.fetch(`${h.url}/api/fortune/llm`, promptBody("and then?"));
    expect(third.status).toBe(200);
    await allSettled(channelId, 3);
    expect((await kit().events("Settled", channelId)).at(-1)?.args.newSettled).toBe(3000n);

    // The client's close captures nothing more: everything served was settled already.
    await session.close();
    const [closed] = await kit().events("ChannelClosed", channelId);
    expect(closed?.args.settledToPayee).toBe(3000n);
    expect((await kit().payeeBalance()) - before).toBe(3000n);
    expect((await new SessionChannelStore(h.db).get(channelId))?.closedAt).toBeInstanceOf(Date);
  });
});
