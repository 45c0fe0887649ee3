import type { ChildProcess } from "node:child_process";
import { forkServer, stopServer } from "./lib.ts";
import { type FixedRequest, type FixedResult, runFixed } from "./loader.ts";
import type { GatewayServerInfo } from "./servers/gateway.ts";
import type { MarketsServerInfo } from "./servers/markets.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = 3;
/** Latency is read at concurrency 1, throughput at this many connections. */
const THROUGHPUT_CONNECTIONS = 16;
const TARGET_ADDED_P50_MS = 1;
const TARGET_THROUGHPUT = 0.8;

type Case = { name: string; origin: string; request: FixedRequest };
type Row = { name: string; concurrency: number; result: FixedResult };

/**
 * `/v1/run` and the MCP `run` tool against a direct call to the same upstream (the markets
 * service's `GET /pm/event`), each in its own process, alternating rounds: latency added at
 * concurrency 1, throughput at 16.
 */
export async function benchGateway(): Promise<void> {
  const servers: ChildProcess[] = [];
  try {
    const markets = await forkServer<MarketsServerInfo>("./servers/markets.ts");
    servers.push(markets.child);
    const gateway = await forkServer<GatewayServerInfo>("./servers/gateway.ts", 120_000, {
      BENCH_MARKETS_URL: markets.message.url,
    });
    servers.push(gateway.child);
    const cases = benchCases(markets.message, gateway.message);
    const rows: Row[] = [];
    for (const concurrency of [1, THROUGHPUT_CONNECTIONS]) {
      const best = new Map<string, FixedResult>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const bench of cases) {
          const result = await measure(bench, concurrency);
          const kept = best.get(bench.name);
          if (!kept || result.rps > kept.rps) best.set(bench.name, result);
        }
      }
      for (const bench of cases)
        rows.push({ name: bench.name, concurrency, result: best.get(bench.name) as FixedResult });
    }
    printGatewayTable(rows);
  } finally {
    for (const child of servers.reverse()) await stopServer(child);
  }
}

function benchCases(markets: MarketsServerInfo, gateway: GatewayServerInfo): Case[] {
  const query = { ref: markets.ref };
  const input = { provider: "markets", endpoint: "/pm/event", method: "GET", input: { queryParams: query } };
  const json = { "content-type": "application/json", authorization: `Bearer ${gateway.gatewayKey}` };
  return [
    {
      name: "direct GET /pm/event (baseline)",
      origin: markets.url,
      request: { method: "GET", path: `/pm/event?ref=${encodeURIComponent(markets.ref)}` },
    },
    {
      name: "gateway POST /v1/run",
      origin: gateway.url,
      request: { method: "POST", path: "/v1/run", headers: json, body: JSON.stringify(input) },
    },
    {
      name: "gateway MCP tools/call run",
      origin: gateway.url,
      request: {
        method: "POST",
        path: "/mcp",
        headers: { ...json, accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "run", arguments: input },
        }),
      },
    },
  ];
}

/** One timed phase: as many requests as fit in `SECONDS`, after a short warm-up. */
async function measure(bench: Case, concurrency: number): Promise<FixedResult> {
  const batch = (count: number) => Array.from({ length: count }, () => bench.request);
  await runFixed(bench.origin, batch(200), { concurrency, maxSeconds: 2 });
  return runFixed(bench.origin, batch(1_000_000), { concurrency, maxSeconds: SECONDS });
}

function printGatewayTable(rows: Row[]): void {
  process.stdout.write(
    `\nTool gateway in front of the markets upstream (each its own process, PGlite; the gateway writes a run ` +
      `and a ledger row per call): best of ${ROUNDS} alternating rounds × ${SECONDS}s\n`,
  );
  process.stdout.write(
    `  ${"case".padEnd(34)} ${"conc".padStart(4)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ${"added p50".padStart(9)} ${"vs direct".padStart(9)} errors\n`,
  );
  const summaries: string[] = [];
  for (const row of rows) {
    const direct = rows.find((r) => r.concurrency === row.concurrency && r.name.startsWith("direct"))?.result;
    const added = direct ? row.result.p50 - direct.p50 : 0;
    const ratio = direct ? row.result.rps / direct.rps : 1;
    const isDirect = row.name.startsWith("direct");
    process.stdout.write(
      `  ${row.name.padEnd(34)} ${String(row.concurrency).padStart(4)} ${row.result.rps.toFixed(0).padStart(7)} ` +
        `${row.result.p50.toFixed(2).padStart(7)} ${row.result.p99.toFixed(2).padStart(7)} ` +
        `${(isDirect ? "—" : `+${added.toFixed(2)}`).padStart(9)} ${ratio.toFixed(2).padStart(9)} ${row.result.errors}\n`,
    );
    if (isDirect) continue;
    if (row.concurrency === 1) {
      const met = added <= TARGET_ADDED_P50_MS ? "met" : "NOT met";
      summaries.push(
        `  ${row.name}: +${added.toFixed(2)} ms at p50 over direct (target ≤ ${TARGET_ADDED_P50_MS} ms: ${met})`,
      );
    } else {
      const met = ratio >= TARGET_THROUGHPUT ? "met" : "NOT met";
      summaries.push(
        `  ${row.name}: ${ratio.toFixed(2)} of direct throughput at ${row.concurrency} connections (target ≥ ${TARGET_THROUGHPUT}: ${met})`,
      );
    }
  }
  process.stdout.write(`${summaries.join("\n")}\n`);
}
