import type { Catalogue } from "../catalogue/catalogue.ts";
import { type LiveMarket, outcomeMills } from "../domain/live-market.ts";
import { valuePosition } from "../domain/portfolio.ts";
import { formatMicro, formatMills } from "../domain/units.ts";
import type { PaperAccount } from "../store/accounts.ts";
import type { StoredPosition } from "../store/positions.ts";

export function accountView(account: PaperAccount) {
  return {
    id: account.id,
    label: account.label,
    balance: formatMicro(account.balanceMicro),
    createdAt: account.createdAt.toISOString(),
  };
}

/** A position valued at its market's displayed price (1 or 0 once resolved). */
export function positionView(position: StoredPosition, catalogue: Catalogue, live: LiveMarket) {
  const token = catalogue.token(position.tokenId);
  const index = token?.outcomeIndex ?? 0;
  const mark = outcomeMills(live, index);
  const valuation = valuePosition(position, mark);
  const status =
    live.winnerIndex !== null && position.sharesMicro === 0n
      ? "resolved"
      : position.sharesMicro === 0n
        ? "closed"
        : "open";
  return {
    tokenId: position.tokenId,
    conditionId: position.conditionId,
    eventSlug: token?.event.slug ?? "",
    question: live.seed.question,
    outcome: live.seed.outcomes[index] as string,
    shares: formatMicro(position.sharesMicro),
    averagePrice: valuation.averagePrice,
    costBasis: formatMicro(position.costBasisMicro),
    currentPrice: formatMills(mark),
    marketValue: formatMicro(valuation.marketValueMicro),
    unrealisedPnl: formatMicro(valuation.unrealisedPnlMicro),
    realisedPnl: formatMicro(position.realisedPnlMicro),
    status: status as "open" | "closed" | "resolved",
  };
}

/** An account with its positions and totals; equity is the balance plus what the positions are worth. */
export function portfolioView(
  account: PaperAccount,
  positions: StoredPosition[],
  catalogue: Catalogue,
  live: ReadonlyMap<string, LiveMarket>,
) {
  let marketValue = 0n;
  let unrealised = 0n;
  let realised = 0n;
  const views = positions.map((position) => {
    const market = live.get(position.conditionId) as LiveMarket;
    const valuation = valuePosition(
      position,
      outcomeMills(market, catalogue.token(position.tokenId)?.outcomeIndex ?? 0),
    );
    marketValue += valuation.marketValueMicro;
    unrealised += valuation.unrealisedPnlMicro;
    realised += position.realisedPnlMicro;
    return positionView(position, catalogue, market);
  });
  return {
    account: accountView(account),
    positions: views,
    totals: {
      marketValue: formatMicro(marketValue),
      unrealisedPnl: formatMicro(unrealised),
      realisedPnl: formatMicro(realised),
      equity: formatMicro(account.balanceMicro + marketValue),
    },
  };
}
