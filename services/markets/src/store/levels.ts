import type { Book, Level } from "../domain/book.ts";

type StoredLevel = { cents: number; shares: string };

/** Book levels as stored in jsonb: micro-share sizes as strings (JSON has no bigint). */
export function encodeLevels(levels: Level[]): string {
  return JSON.stringify(
    levels.map((level) => ({ cents: level.cents, shares: level.sharesMicro.toString() })),
  );
}

export function decodeLevels(stored: unknown): Level[] {
  return (stored as StoredLevel[]).map((level) => ({
    cents: level.cents,
    sharesMicro: BigInt(level.shares),
  }));
}

export function decodeBook(bids: unknown, asks: unknown): Book {
  return { bids: decodeLevels(bids), asks: decodeLevels(asks) };
}
