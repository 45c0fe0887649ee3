/**
 * How one process shares its worker slots between accounts, so that no account delays another's
 * due posts: one account's forty posts whose media trickles in must not hold every slot while
 * another account's text post waits.
 */
export type SlotShare = {
  /** The slots one account may hold while other accounts have due targets: its share. */
  perAccount: number;
  /**
   * Slots an account beyond its share never takes: they stay free for the next account whose
   * target falls due, which then starts at once instead of waiting for a slot to come free.
   */
  reserved: number;
};

/** The defaults: a quarter of the slots per account, one slot held back from any account beyond that. */
export const DEFAULT_ACCOUNT_SHARE = 0.25;
export const DEFAULT_RESERVED_SLOTS = 1;

/**
 * The share of a process of `concurrency` slots: `accountShare` of them per account (at least one),
 * and `reservedSlots` kept from any account beyond its share (never more than the slots beyond
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
  /** Whether a candidate was left, slots still free, because its account already held its share. */
  deferred: boolean;
};

/**
 * Which of `candidates` (due targets in due order) to claim into `free` slots, when each account
 * already runs `running` targets here. First every account up to its share, in due order (so an
 * account below its share goes before the rest of one at it); then, in due order, targets of
 * accounts at their share, but only into slots beyond the reserved ones. With a single account
 * due, it thus uses every slot but the reserved ones.
 */
export function pickFairly(
  candidates: readonly DueCandidate[],
  input: { free: number; running: ReadonlyMap<string, number>; share: SlotShare },
): FairPick {
  const { free, running, share } = input;
  const held = new Map(running);
  const picked = new Set<DueCandidate>();
  for (const candidate of candidates) {
    if (picked.size >= free) break;
    const count = held.get(candidate.accountId) ?? 0;
    if (count >= share.perAccount) continue;
    picked.add(candidate);
    held.set(candidate.accountId, count + 1);
  }
  let deferred = false;
  for (const candidate of candidates) {
    if (picked.has(candidate)) continue;
    if (picked.size >= free) break;
    if (free - picked.size <= share.reserved) {
      deferred = true;
      break;
    }
    picked.add(candidate);
  }
  return { picked: candidates.filter((candidate) => picked.has(candidate)), deferred };
}

/** The accounts that hold their share (or more) once `picked` runs too: a look past them finds the others. */
export function accountsAtShare(
  running: ReadonlyMap<string, number>,
  picked: readonly DueCandidate[],
  share: SlotShare,
): string[] {
  const held = new Map(running);
  for (const candidate of picked) held.set(candidate.accountId, (held.get(candidate.accountId) ?? 0) + 1);
  return [...held].filter(([, count]) => count >= share.perAccount).map(([accountId]) => accountId);
}
