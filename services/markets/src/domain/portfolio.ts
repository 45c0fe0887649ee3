import { divideRounded, formatRatio, valueAtMills } from "./units.ts";

/** An account's holding of one outcome token, in exact micro units. */
export type Position = {
  sharesMicro: bigint;
  /** What the shares held cost, in micro-USD. */
  costBasisMicro: bigint;
  /** Profit already taken by sells and resolution, in micro-USD. */
  realisedPnlMicro: bigint;
};

export const EMPTY_POSITION: Position = { sharesMicro: 0n, costBasisMicro: 0n, realisedPnlMicro: 0n };

/** A buy adds its shares and what they cost. */
export function applyBuy(position: Position, sharesMicro: bigint, costMicro: bigint): Position {
  return {
    sharesMicro: position.sharesMicro + sharesMicro,
    costBasisMicro: position.costBasisMicro + costMicro,
    realisedPnlMicro: position.realisedPnlMicro,
  };
}

/**
 * A sell removes its share of the cost basis (pro rata, rounded half up to the micro-USD;
 * all of it when the position closes) and realises proceeds minus that basis. Nothing is lost
 * to rounding: basis removed plus basis left always equals the basis before.
 */
export function applySell(position: Position, sharesMicro: bigint, proceedsMicro: bigint): Position {
  if (sharesMicro > position.sharesMicro) throw new RangeError("selling more shares than held");
  const removedBasis =
    sharesMicro === position.sharesMicro
      ? position.costBasisMicro
      : divideRounded(position.costBasisMicro * sharesMicro, position.sharesMicro);
  return {
    sharesMicro: position.sharesMicro - sharesMicro,
    costBasisMicro: position.costBasisMicro - removedBasis,
    realisedPnlMicro: position.realisedPnlMicro + proceedsMicro - removedBasis,
  };
}

/** One USD per winning share, nothing per losing share. */
export function resolutionPayoutMicro(sharesMicro: bigint, won: boolean): bigint {
  return won ? sharesMicro : 0n;
}

/** Resolution closes the position: the payout is realised against the whole basis. */
export function applyResolution(
  position: Position,
  won: boolean,
): { position: Position; payoutMicro: bigint } {
  const payoutMicro = resolutionPayoutMicro(position.sharesMicro, won);
  return {
    payoutMicro,
    position: {
      sharesMicro: 0n,
      costBasisMicro: 0n,
      realisedPnlMicro: position.realisedPnlMicro + payoutMicro - position.costBasisMicro,
    },
  };
}

/** A position as shown to its owner, valued at the displayed price (tenths of a cent). */
export type PositionValuation = {
  averagePrice: string | null;
  marketValueMicro: bigint;
  unrealisedPnlMicro: bigint;
};

export function valuePosition(position: Position, markMills: number): PositionValuation {
  const marketValueMicro = valueAtMills(position.sharesMicro, markMills);
  return {
    averagePrice:
      position.sharesMicro === 0n ? null : formatRatio(position.costBasisMicro, position.sharesMicro),
    marketValueMicro,
    unrealisedPnlMicro: marketValueMicro - position.costBasisMicro,
  };
}
