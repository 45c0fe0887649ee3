import { type StoredResponse, storedJson } from "@app/edge";
import { usd } from "../domain/money.ts";

/** The answer of a credit purchase: what was credited, the balance it left, the transaction that paid. */
export function creditAnswer(
  creditedMicro: bigint,
  balanceMicro: bigint,
  transaction: string | null,
  receiptHeaders: Record<string, string> = {},
): StoredResponse {
  return storedJson(
    200,
    { credited: usd(creditedMicro), balance: usd(balanceMicro), transaction },
    { "Cache-Control": "no-store", ...receiptHeaders },
  );
}
