import type { MarketOrder } from "./book.ts";
import { divideRounded, formatMicro, isWholeLots, LOT_MICRO_SHARES, MICRO, parseMicro } from "./units.ts";

/** An order as a client sends it: decimal strings, validated here. */
export type OrderInput = {
  side: "buy" | "sell";
  amount?: string;
  shares?: string;
  limitPrice?: string;
};

export type ParsedOrder = { kind: "order"; order: MarketOrder } | { kind: "invalid"; message: string };

const invalid = (message: string): ParsedOrder => ({ kind: "invalid", message });

function parseLimit(limitPrice: string | undefined): number | undefined | null {
  if (limitPrice === undefined) return undefined;
  const micro = parseMicro(limitPrice);
  if (micro === undefined || micro % 10_000n !== 0n) return null;
  const cents = Number(micro / 10_000n);
  return cents >= 1 && cents <= 99 ? cents : null;
}

/**
 * Turns an order request into a {@link MarketOrder}: a buy names either a USD `amount` or
 * `shares`, a sell names `shares`; shares are whole lots of 0.01; an optional `limitPrice`
 * (0.01..0.99 on the tick grid) is the worst price the order may fill at.
 */
export function parseOrder(input: OrderInput): ParsedOrder {
  const limitCents = parseLimit(input.limitPrice);
  if (limitCents === null) return invalid("limitPrice must be between 0.01 and 0.99 on the 0.01 tick grid.");
  const limit = limitCents === undefined ? {} : { limitCents };
  if (input.side === "sell" && input.amount !== undefined)
    return invalid("A sell names shares, not an amount.");
  if ((input.amount === undefined) === (input.shares === undefined)) {
    return invalid(
      input.side === "buy" ? "A buy names either amount (USD) or shares." : "A sell names shares.",
    );
  }
  if (input.amount !== undefined) {
    const amountMicro = parseMicro(input.amount);
    if (amountMicro === undefined || amountMicro < 10_000n)
      return invalid("amount must be at least 0.01 USD.");
    return { kind: "order", order: { side: "buy", amountMicro, ...limit } };
  }
  const sharesMicro = parseMicro(input.shares as string);
  if (sharesMicro === undefined || !isWholeLots(sharesMicro)) {
    return invalid(`shares must be a positive multiple of ${formatMicro(LOT_MICRO_SHARES)}.`);
  }
  return { kind: "order", order: { side: input.side, sharesMicro, ...limit } };
}

/** How far the average fill price strayed from the best price, against the trader: USD per share and bps. */
export function slippage(
  side: "buy" | "sell",
  bestCents: number,
  notionalMicro: bigint,
  sharesMicro: bigint,
): { averageMicro: bigint; slippageMicro: bigint; slippageBps: number } {
  const averageMicro = divideRounded(notionalMicro * MICRO, sharesMicro);
  const bestMicro = BigInt(bestCents) * 10_000n;
  const slippageMicro = side === "buy" ? averageMicro - bestMicro : bestMicro - averageMicro;
  return {
    averageMicro,
    slippageMicro,
    slippageBps: Number(divideRounded(slippageMicro * 10_000n, bestMicro)),
  };
}
