import type { z } from "@app/core";
import { usd } from "../domain/money.ts";
import { isErrorStatus, runStatusOf } from "../domain/run-status.ts";
import type { LedgerRecord, RunHistoryRecord, UsageGroup } from "../store/run-history.ts";
import type { LedgerEntrySchema, RunSchema, UsageSchema } from "./history-schemas.ts";

/** A run as the history answers it: what ran, how it ended, what it cost; never an input or a key. */
export function runView(run: RunHistoryRecord): z.infer<typeof RunSchema> {
  return {
    id: run.id,
    provider: run.provider,
    endpoint: run.endpoint,
    method: run.method,
    key: { id: run.keyId, prefix: run.keyPrefix },
    status: runStatusOf(run.outcome, run.upstreamStatus),
    upstream: { status: run.upstreamStatus },
    price: usd(run.priceMicro),
    cost: usd(run.priceMicro - run.refundedMicro),
    createdAt: run.createdAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    durationMs: run.durationMs,
    idempotencyKey: run.idempotencyKey,
    requestId: run.requestId,
    ledger: { charge: run.chargeLedgerId, refund: run.refundLedgerId },
  };
}

/**
 * A run with its kept output as JSON text: the output (the JSON text its envelope answered) is
 * spliced in as stored, not parsed and serialised again, so it reads exactly as the envelope did.
 */
export function runDetailJson(run: RunHistoryRecord): string {
  const head = JSON.stringify(runView(run));
  if (run.output == null) return head;
  return `${head.slice(0, -1)},"output":${run.output}}`;
}

type Counts = { runs: number; costMicro: bigint; errors: number };

const add = (counts: Counts | undefined, group: UsageGroup): Counts => ({
  runs: (counts?.runs ?? 0) + group.runs,
  costMicro: (counts?.costMicro ?? 0n) + group.costMicro,
  errors: (counts?.errors ?? 0) + (isErrorStatus(group.status) ? group.runs : 0),
});

/** Usage of a period: totals, per tool (runs, cost, errors) and per key (runs, cost), in exact decimals. */
export function usageView(
  range: { from: Date; to: Date },
  groups: UsageGroup[],
): z.infer<typeof UsageSchema> {
  let total: Counts = { runs: 0, costMicro: 0n, errors: 0 };
  const tools = new Map<string, { tool: [string, string, string]; counts: Counts }>();
  const keys = new Map<string, { prefix: string; counts: Counts }>();
  for (const group of groups) {
    total = add(total, group);
    const toolId = JSON.stringify([group.provider, group.endpoint, group.method]);
    tools.set(toolId, {
      tool: [group.provider, group.endpoint, group.method],
      counts: add(tools.get(toolId)?.counts, group),
    });
    keys.set(group.keyId, { prefix: group.keyPrefix, counts: add(keys.get(group.keyId)?.counts, group) });
  }
  return {
    from: range.from.toISOString(),
    to: range.to.toISOString(),
    total: { runs: total.runs, cost: usd(total.costMicro), errors: total.errors },
    tools: [...tools.values()].map(({ tool: [provider, endpoint, method], counts }) => ({
      provider,
      endpoint,
      method,
      runs: counts.runs,
      cost: usd(counts.costMicro),
      errors: counts.errors,
    })),
    keys: [...keys.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([id, { prefix, counts }]) => ({
        key: { id, prefix },
        runs: counts.runs,
        cost: usd(counts.costMicro),
      })),
  };
}

/** A ledger row as the export answers it. */
export function ledgerEntryView(entry: LedgerRecord): z.infer<typeof LedgerEntrySchema> {
  return {
    id: entry.id.toString(),
    kind: entry.kind,
    amount: usd(entry.amountMicro),
    balanceAfter: usd(entry.balanceAfterMicro),
    createdAt: entry.createdAt.toISOString(),
    note: entry.note,
    run: entry.run && {
      id: entry.run.id,
      provider: entry.run.provider,
      endpoint: entry.run.endpoint,
      method: entry.run.method,
      idempotencyKey: entry.run.idempotencyKey,
      requestId: entry.run.requestId,
      price: usd(entry.run.priceMicro),
    },
    settlement: entry.settlement,
  };
}
