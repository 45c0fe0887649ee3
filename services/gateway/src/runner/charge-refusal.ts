import { dayResetsAt } from "../domain/key-policy.ts";
import { usd } from "../domain/money.ts";
import { GatewayError } from "../errors.ts";
import type { StartedRun } from "../store/runs.ts";

/**
 * Why a priced run was not charged, as the 402 its caller gets (nothing charged, nothing sent
 * upstream): the balance is short (`INSUFFICIENT_BALANCE`: `price`, `balance`), or the run would
 * take its key past a daily spend cap of its policy (`SPEND_CAP_REACHED`: `cap` and `spent` of
 * the cap it would pass, `price`, `resetsAt` the UTC midnight that starts a new day's spend,
 * `scope` "key" for the key's daily total or "tool" for its daily cap on this tool).
 */
export function chargeRefusal(
  started: Exclude<StartedRun, { kind: "started" }>,
  priceMicro: bigint,
): GatewayError {
  if (started.kind === "insufficient") {
    return new GatewayError("INSUFFICIENT_BALANCE", "This tool costs more than the account's balance.", {
      price: usd(priceMicro),
      balance: usd(started.balanceMicro),
    });
  }
  const scope = started.cap === "daily" ? "key" : "tool";
  return new GatewayError(
    "SPEND_CAP_REACHED",
    scope === "key"
      ? "This run would take the gateway key past its daily spend cap; nothing was charged."
      : "This run would take the gateway key past its daily spend cap on this tool; nothing was charged.",
    {
      scope,
      cap: usd(started.capMicro),
      spent: usd(started.spentMicro),
      price: usd(priceMicro),
      resetsAt: dayResetsAt(started.day).toISOString(),
    },
  );
}
