/**
 * How a worker process shares its slots between accounts: the pure rules (fair-share.ts), and the
 * claim that applies them in SQL (fair-claim.ts), asserted on which targets each claim takes.
 */
import { test } from "@app/testkit";
import { describe, expect, it } from "vitest";
import { claimFairShare } from "../../src/publishing/fair-claim.ts";
import { type DueCandidate, pickFairly, slotShare } from "../../src/publishing/fair-share.ts";
import { claimDueTargets } from "../../src/store/targets.ts";
import { content, insertPost } from "../publishing-support.ts";
import { seedAccount, seedConnection } from "../support.ts";

const due = (accountId: string, count: number, from = 0): DueCandidate[] =>
  Array.from({ length: count }, (_, index) => ({ id: `${accountId}-${from + index}`, accountId }));

describe("the slot share (pure)", () => {
  it("gives each account a quarter of the slots, at least one, and keeps one back from any beyond that", () => {
    expect(slotShare(16)).toEqual({ perAccount: 4, reserved: 1 });
    expect(slotShare(4)).toEqual({ perAccount: 1, reserved: 1 });
    expect(slotShare(1)).toEqual({ perAccount: 1, reserved: 0 });
    expect(slotShare(16, 0.5, 3)).toEqual({ perAccount: 8, reserved: 3 });
  });

  it("a lone account uses every slot but the reserved one", () => {
    const { picked, deferred } = pickFairly(due("a", 40), {
      free: 16,
      running: new Map(),
      share: slotShare(16),
    });
    expect(picked).toHaveLength(15);
    expect(picked.map((c) => c.id)).toEqual(due("a", 15).map((c) => c.id));
    expect(deferred).toBe(true);
  });

  it("another account's target, due after forty of the first's, is taken in the same claim", () => {
    const candidates = [...due("a", 40), ...due("b", 1)];
    const { picked } = pickFairly(candidates, { free: 16, running: new Map(), share: slotShare(16) });
    expect(picked.filter((c) => c.accountId === "b")).toHaveLength(1);
    expect(picked).toHaveLength(15);
  });

  it("an account at its share gets no slot while another below it has a due target", () => {
    const running = new Map([["a", 13]]);
    const candidates = [...due("a", 10), ...due("b", 3)];
    const { picked } = pickFairly(candidates, { free: 3, running, share: slotShare(16) });
    expect(picked.map((c) => c.accountId)).toEqual(["b", "b"]);
  });

  it("the reserved slot goes to an account with nothing running, never to one running a target", () => {
    // b runs nothing: its first target takes a slot; its second would take the reserved one.
    const candidates = [...due("a", 10), ...due("b", 3)];
    const first = pickFairly(candidates, { free: 2, running: new Map([["a", 14]]), share: slotShare(16) });
    expect(first.picked.map((c) => c.id)).toEqual(["b-0"]);
    expect(first.deferred).toBe(true);
    // Then a newcomer, c, due after all of them, takes it.
    const next = pickFairly([...due("a", 10, 10), ...due("b", 2, 1), ...due("c", 1)], {
      free: 1,
      running: new Map([
        ["a", 14],
        ["b", 1],
      ]),
      share: slotShare(16),
    });
    expect(next.picked.map((c) => c.id)).toEqual(["c-0"]);
  });

  it("four accounts each at their share leave the reserved slot free (audit: they filled all 16)", () => {
    const candidates = ["a", "b", "c", "d"].flatMap((account) => due(account, 6));
    const { picked, deferred } = pickFairly(candidates, {
      free: 16,
      running: new Map(),
      share: slotShare(16),
    });
    expect(picked).toHaveLength(15);
    const held = (account: string) => picked.filter((c) => c.accountId === account).length;
    expect(["a", "b", "c", "d"].map(held)).toEqual([4, 4, 4, 3]);
    expect(deferred).toBe(true);
    // A fifth account's target, due later, then takes the last slot.
    const running = new Map(["a", "b", "c", "d"].map((account) => [account, held(account)]));
    const fifth = pickFairly([...candidates.filter((c) => !picked.includes(c)), ...due("e", 1)], {
      free: 1,
      running,
      share: slotShare(16),
    });
    expect(fifth.picked.map((c) => c.id)).toEqual(["e-0"]);
  });

  it("many accounts each with nothing running fill every slot, one each, in due order", () => {
    const candidates = Array.from({ length: 6 }, (_, index) => due(`n${index}`, 2)).flat();
    const { picked } = pickFairly(candidates, { free: 4, running: new Map(), share: slotShare(4) });
    expect(picked.map((c) => c.id)).toEqual(["n0-0", "n1-0", "n2-0", "n3-0"]);
  });

  it("the reserved slot is never taken by an account beyond its share", () => {
    const { picked, deferred } = pickFairly(due("a", 10), {
      free: 1,
      running: new Map([["a", 15]]),
      share: slotShare(16),
    });
    expect(picked).toEqual([]);
    expect(deferred).toBe(true);
  });

  it("nothing deferred when the slots simply ran out", () => {
    const { picked, deferred } = pickFairly([...due("a", 3), ...due("b", 3)], {
      free: 3,
      running: new Map(),
      share: slotShare(16),
    });
    expect(picked.map((c) => c.id)).toEqual(["a-0", "a-1", "b-0"]);
    expect(deferred).toBe(false);
  });
});

describe("the fair claim in SQL", () => {
  const claim = (
    db: Parameters<typeof claimFairShare>[0],
    input: Partial<Parameters<typeof claimFairShare>[1]>,
  ) => {
    const now = new Date();
    return claimFairShare(db, {
      workerId: "w1",
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      free: 16,
      running: new Map(),
      share: slotShare(16),
      excludeIds: [],
      mayLookPast: true,
      ...input,
    });
  };

  async function seedDue(db: Parameters<typeof claimFairShare>[0], posts: number, minutesAgo: number) {
    const { accountId } = await seedAccount(db);
    const connectionId = await seedConnection(db, accountId, "bluesky");
    const ids: string[] = [];
    for (let index = 0; index < posts; index += 1) {
      ids.push(
        await insertPost(db, {
          accountId,
          connections: [{ id: connectionId, platform: "bluesky" }],
          content: content({ caption: `post ${index}` }),
          dueAt: new Date(Date.now() - (minutesAgo * 60_000 - index * 1_000)),
        }),
      );
    }
    return { accountId, postIds: ids };
  }

  test("one claim takes the other account's post, due after forty of the first's, and never a target twice", async ({
    db,
  }) => {
    const a = await seedDue(db, 40, 10);
    const b = await seedDue(db, 1, 1);
    const first = await claim(db, {});
    const accounts = first.claimed.map((target) => target.accountId);
    expect(accounts.filter((id) => id === b.accountId)).toHaveLength(1);
    expect(accounts.filter((id) => id === a.accountId)).toHaveLength(14);
    expect(first.claimed.every((target) => target.status === "publishing" && target.claimedBy === "w1")).toBe(
      true,
    );

    // The same process's next claim for its one free slot: the reserved slot stays free of A.
    const running = new Map([
      [a.accountId, 14],
      [b.accountId, 1],
    ]);
    const second = await claim(db, { free: 1, running });
    expect(second.claimed).toEqual([]);

    // Another process claims what is left: none of the targets claimed already.
    const other = await claimDueTargets(db, {
      workerId: "w2",
      limit: 100,
      now: new Date(),
      leaseUntil: new Date(Date.now() + 60_000),
    });
    const firstIds = new Set(first.claimed.map((target) => target.id));
    expect(other).toHaveLength(40 - 14);
    expect(other.some((target) => firstIds.has(target.id))).toBe(false);
  });

  test("an account deep in a backlog does not hide another's due target: the claim looks past it", async ({
    db,
  }) => {
    const a = await seedDue(db, 60, 10);
    const b = await seedDue(db, 1, 1);
    // A already holds 15 of 16 slots here; its next 60 targets fill the claim's window.
    const running = new Map([[a.accountId, 15]]);
    const paced = await claim(db, { free: 1, running, mayLookPast: false });
    expect(paced.claimed).toEqual([]);
    const looked = await claim(db, { free: 1, running, mayLookPast: true });
    expect(looked.lookedPast).toBe(true);
    expect(looked.claimed.map((target) => target.accountId)).toEqual([b.accountId]);
    expect(looked.claimed[0]?.postId).toBe(b.postIds[0]);
  });

  test("four accounts each running targets never take the reserved slot: the claim looks past them to a fifth", async ({
    db,
  }) => {
    // The database is the file's: targets earlier tests left due are put out of the way.
    await db.query("UPDATE publisher.post_targets SET status = 'canceled' WHERE status = 'scheduled'");
    const busy = [
      await seedDue(db, 10, 10),
      await seedDue(db, 10, 9),
      await seedDue(db, 10, 8),
      await seedDue(db, 10, 7),
    ];
    const fifth = await seedDue(db, 1, 1);
    // Fifteen of sixteen slots run the four accounts' targets (one of them below its share).
    const running = new Map(busy.map((account, index) => [account.accountId, index === 3 ? 3 : 4]));
    const looked = await claim(db, { free: 1, running, mayLookPast: true });
    expect(looked.claimed.map((target) => target.accountId)).toEqual([fifth.accountId]);
    expect(looked.lookedPast).toBe(true);
    // Without a look past, the window holds only the four accounts' targets: none is taken.
    const again = await claim(db, { free: 1, running, mayLookPast: false });
    expect(again.claimed).toEqual([]);
    expect(again.deferred).toBe(true);
  });
});
