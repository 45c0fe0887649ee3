/**
 * How one process shares its worker slots between accounts, so that no account delays another's
 * due posts: one account's forty posts whose media trickles in must not hold every slot while
 * another account's text post waits, and neither must four accounts' posts, each account within
 * its share.
 */
export type SlotShare = {
  /** The slots one account may hold while other accounts have due targets: its share. */
  perAccount: number;
  /**
   * Slots kept for accounts that have nothing running here: an account that runs a target never
   * takes a slot that would leave fewer than these free, whatever its share, so the next account
   * whose target falls due starts at once instead of waiting for a slot to come free.
   */
  reserved: number;
};

/** The defaults: a quarter of the slots per account, one slot kept for accounts with nothing running. */
export const DEFAULT_ACCOUNT_SHARE = 0.25;
export const DEFAULT_RESERVED_SLOTS = 1;

/**
 * The share of a process of `concurrency` slots: `accountShare` of them per account (at least one),
 * and `reservedSlots` kept for accounts with nothing running (never more than the slots beyond
 * one share, so a lone account always runs at least its share).
 */
export function slotShare(
  concurrency: number,
  accountShare = DEFAULT_ACCOUNT_SHARE,
  reservedSlots = DEFAULT_RESERVED_SLOTS,
): SlotShare {
  const perAccount = Math.max(1, Math.min(concurrency, Math.floor(concurrency * accountShare)));
  return { perAccount, reserved: Math.max(0, Math.min(reservedSlots, concurrency - perAccount)) };
}

/** A due target as a claim sees it before taking it: its id and its post's account. */
export type DueCandidate = { id: string; accountId: string };

export type FairPick = {
  /** The candidates to claim, in due order. */
  picked: DueCandidate[];
  /**
   * Whether a candidate was left, slots still free, because its account held its share or runs a
   * target and only reserved slots were left: claiming again finds nothing new until a slot comes
   * free or another account's target falls due.
   */
  deferred: boolean;
};

/**
 * Which of `candidates` (due targets in due order) to claim into `free` slots, when each account
 * already runs `running` targets here. An account with nothing running (here or among the picks)
 * may take any free slot, the reserved ones included; an account that runs a target only a slot
 * that leaves `share.reserved` free. First every account up to its share, in due order (so an
 * account below its share goes before the rest of one at it); then, in due order, targets of
 * accounts at their share. A lone account thus uses every slot but the reserved ones, and so do
 * four accounts each at a quarter: the reserved slots wait for an account with nothing running.
 */
export function pickFairly(
  candidates: readonly DueCandidate[],
  input: { free: number; running: ReadonlyMap<string, number>; share: SlotShare },
): FairPick {
  const { free, running, share } = input;
  const held = new Map(running);
  const picked = new Set<DueCandidate>();
  /** Whether the candidate's account may take one more slot now. */
  const mayTake = (candidate: DueCandidate): boolean =>
    (held.get(candidate.accountId) ?? 0) === 0 || free - picked.size - 1 >= share.reserved;
  const take = (candidate: DueCandidate) => {
    picked.add(candidate);
    held.set(candidate.accountId, (held.get(candidate.accountId) ?? 0) + 1);
  };
  for (const candidate of candidates) {
    if (picked.size >= free) break;
    if ((held.get(candidate.accountId) ?? 0) >= share.perAccount) continue;
    if (mayTake(candidate)) take(candidate);
  }
  for (const candidate of candidates) {
    if (picked.size >= free) break;
    if (picked.has(candidate) || (held.get(candidate.accountId) ?? 0) < share.perAccount) continue;
    if (mayTake(candidate)) take(candidate);
  }
  // Slots still free with candidates left: those were refused by the share or the reserve.
  return {
    picked: candidates.filter((candidate) => picked.has(candidate)),
    deferred: picked.size < free && picked.size < candidates.length,
  };
}

/**
 * The accounts that cannot take another slot in this claim once `picked` runs too, with `left`
 * slots still free: those at their share, and, when no more than the reserved slots are left,
 * every account that runs a target. A look past them finds the others.
 */
export function accountsThatMayNotTakeMore(
  running: ReadonlyMap<string, number>,
  picked: readonly DueCandidate[],
  share: SlotShare,
  left: number,
): string[] {
  const held = new Map(running);
  for (const candidate of picked) held.set(candidate.accountId, (held.get(candidate.accountId) ?? 0) + 1);
  return [...held]
    .filter(([, count]) => count >= share.perAccount || (count > 0 && left <= share.reserved))
    .map(([accountId]) => accountId);
}
