import type { ChildProcess } from "node:child_process";
import { type CpuShares, withCpu } from "./cpu.ts";
import { ask, forkServer, stopServer } from "./lib.ts";
import { type FixedRequest, type FixedResult, runFixed } from "./loader.ts";
import type { GatewayDbStats, GatewayServerInfo } from "./servers/gateway.ts";
import type { MarketsServerInfo } from "./servers/markets.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = 3;
/** Latency is read at concurrency 1, throughput at this many connections. */
const THROUGHPUT_CONNECTIONS = 16;
const TARGET_ADDED_P50_MS = 1;
const TARGET_THROUGHPUT = 0.8;

type Case = { name: string; origin: string; request: FixedRequest };
/** One timed phase: the loader's figures, each process's CPU, the gateway's database work. */
type Measured = { result: FixedResult; cpu: CpuShares; db: GatewayDbStats };
type Row = Measured & { name: string; concurrency: number };
type Pids = { gateway: ChildProcess; priced: ChildProcess; markets: ChildProcess };
/** The markets tool's price on the priced gateway: 10 micro-USD, so the demo's 10 USD last a million runs. */
const PRICE = "0.00001";
/** Target: a priced run (a balance debit on every call) within this much of a free one at p50. */
const TARGET_PRICED_ADDED_P50_MS = 0.2;

/**
 * `/v1/run` and the MCP `run` tool against a direct call to the same upstream (the markets
 * service's `GET /pm/event`), each in its own process, alternating rounds: latency added at
 * concurrency 1, throughput at 16. Every phase also reads how busy each process was (CPU ms per
 * request: loader, gateway, markets) and what the gateway spent in its database, for a note on
 * where the time goes.
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
    const priced = await forkServer<GatewayServerInfo>("./servers/gateway.ts", 120_000, {
      BENCH_MARKETS_URL: markets.message.url,
      BENCH_TOOL_PRICES: JSON.stringify({ "markets /pm/event GET": PRICE }),
    });
    servers.push(priced.child);
    const pids = { gateway: gateway.child, priced: priced.child, markets: markets.child };
    const cases = benchCases(markets.message, gateway.message, priced.message);
    const rows: Row[] = [];
    for (const concurrency of [1, THROUGHPUT_CONNECTIONS]) {
      const best = new Map<string, Measured>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const bench of cases) {
          const measured = await measure(bench, concurrency, pids);
          const kept = best.get(bench.name);
          if (!kept || measured.result.rps > kept.result.rps) best.set(bench.name, measured);
        }
      }
      for (const bench of cases)
        rows.push({ name: bench.name, concurrency, ...(best.get(bench.name) as Measured) });
    }
    printGatewayTable(rows);
    printPricedAgainstFree(rows);
    printTimeSplit(rows);
  } finally {
    for (const child of servers.reverse()) await stopServer(child);
  }
}

function benchCases(
  markets: MarketsServerInfo,
  gateway: GatewayServerInfo,
  priced: GatewayServerInfo,
): Case[] {
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
      name: `priced POST /v1/run (${PRICE} USD)`,
      origin: priced.url,
      request: {
        method: "POST",
        path: "/v1/run",
        headers: { ...json, authorization: `Bearer ${priced.gatewayKey}` },
        body: JSON.stringify(input),
      },
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

/**
 * One timed phase: as many requests as fit in `SECONDS`, after a short warm-up, with each
 * process's CPU and the gateway's database work over the timed part only. Every case (the direct
 * one included) runs with both servers up, through the same loader, on the same keep-alive terms.
 */
async function measure(bench: Case, concurrency: number, pids: Pids): Promise<Measured> {
  const batch = (count: number) => Array.from({ length: count }, () => bench.request);
  await runFixed(bench.origin, batch(200), { concurrency, maxSeconds: 2 });
  const serving = bench.name.startsWith("priced") ? pids.priced : pids.gateway;
  await ask<GatewayDbStats>(serving, "db-stats", 10_000);
  const { result, cpu } = await withCpu({ gateway: serving.pid, markets: pids.markets.pid }, () =>
    runFixed(bench.origin, batch(1_000_000), { concurrency, maxSeconds: SECONDS }),
  );
  const db = await ask<GatewayDbStats>(serving, "db-stats", 10_000);
  return { result, cpu, db };
}

/** CPU ms a process spent per answered request (undefined when unknown). */
function cpuPerRequest(row: Row, process: string): number | undefined {
  const share = row.cpu[process];
  return share === undefined || row.result.rps <= 0 ? undefined : (share / row.result.rps) * 1000;
}

const ms = (value: number | undefined, width = 6) =>
  (value === undefined || !Number.isFinite(value) ? "—" : value.toFixed(2)).padStart(width);

function printGatewayTable(rows: Row[]): void {
  process.stdout.write(
    `\nTool gateway in front of the markets upstream (each its own process, PGlite): best of ${ROUNDS} ` +
      `alternating rounds × ${SECONDS}s; CPU ms per request of each process (loader, gateway, markets)\n`,
  );
  process.stdout.write(
    `  ${"case".padEnd(34)} ${"conc".padStart(4)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ${"p99 ms".padStart(7)} ` +
      `${"added p50".padStart(9)} ${"vs direct".padStart(9)} ${"loader".padStart(6)} ${"gatewy".padStart(6)} ${"market".padStart(6)} errors\n`,
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
        `${(isDirect ? "—" : `${added >= 0 ? "+" : ""}${added.toFixed(2)}`).padStart(9)} ${ratio.toFixed(2).padStart(9)} ` +
        `${ms(cpuPerRequest(row, "loader"))} ${isDirect ? "     —" : ms(cpuPerRequest(row, "gateway"))} ` +
        `${ms(cpuPerRequest(row, "markets"))} ${row.result.errors}\n`,
    );
    if (isDirect) continue;
    if (row.concurrency === 1) {
      const met = added <= TARGET_ADDED_P50_MS ? "met" : "NOT met";
      summaries.push(
        `  ${row.name}: ${added >= 0 ? "+" : ""}${added.toFixed(2)} ms at p50 over direct (target ≤ ${TARGET_ADDED_P50_MS} ms: ${met})`,
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

/**
 * A priced run against a free one through the same gateway code, in the same rounds: the latency
 * the balance debit adds at concurrency 1 (its target), and the throughput ratio at 16.
 */
function printPricedAgainstFree(rows: Row[]): void {
  const find = (prefix: string, concurrency: number) =>
    rows.find((row) => row.concurrency === concurrency && row.name.startsWith(prefix));
  const free1 = find("gateway POST /v1/run", 1);
  const priced1 = find("priced", 1);
  const free16 = find("gateway POST /v1/run", THROUGHPUT_CONNECTIONS);
  const priced16 = find("priced", THROUGHPUT_CONNECTIONS);
  if (!free1 || !priced1 || !free16 || !priced16) return;
  const added = priced1.result.p50 - free1.result.p50;
  const met = added <= TARGET_PRICED_ADDED_P50_MS ? "met" : "NOT met";
  process.stdout.write(
    `
Priced against free /v1/run (a balance debit, the ledger row and the spend counters on every call)
` +
      `  priced: ${added >= 0 ? "+" : ""}${added.toFixed(2)} ms at p50 over free (target ≤ ${TARGET_PRICED_ADDED_P50_MS} ms: ${met}); ` +
      `${(priced16.result.rps / free16.result.rps).toFixed(2)} of free throughput at ${THROUGHPUT_CONNECTIONS} connections ` +
      `(${priced16.result.rps.toFixed(0)} against ${free16.result.rps.toFixed(0)} req/s; database per priced run: ` +
      `${(priced16.db.statements / Math.max(1, priced16.result.ok)).toFixed(2)} statements)
`,
  );
}

/**
 * Where the time goes: at concurrency 1 the added latency is the gateway's own work on a run's
 * path plus one more loopback hop; at 16 connections the three processes share the machine's
 * cores, so throughput through the gateway is what the cores afford once the gateway's CPU per
 * request is added to the loader's and the upstream's.
 */
function printTimeSplit(rows: Row[]): void {
  const find = (prefix: string, concurrency: number) =>
    rows.find((row) => row.concurrency === concurrency && row.name.startsWith(prefix));
  const total = (row: Row | undefined) =>
    row ? ["loader", "gateway", "markets"].reduce((sum, name) => sum + (row.cpu[name] ?? 0), 0) : Number.NaN;
  const dbPerRun = (row: Row | undefined) =>
    row && row.result.ok > 0
      ? `${(row.db.statements / row.result.ok).toFixed(2)} statements, ${ms(row.db.ms / row.result.ok, 0)} ms`
      : "—";
  process.stdout.write(
    "\nWhere the time goes (CPU ms per request from /proc; the gateway's database work counted in-process)\n",
  );
  for (const prefix of ["gateway POST /v1/run", "gateway MCP"]) {
    const slow = find(prefix, 1);
    const direct1 = find("direct", 1);
    const fast = find(prefix, THROUGHPUT_CONNECTIONS);
    const direct16 = find("direct", THROUGHPUT_CONNECTIONS);
    if (!slow || !direct1 || !fast || !direct16) continue;
    const gatewayCpu = cpuPerRequest(slow, "gateway");
    const added = slow.result.p50 - direct1.result.p50;
    const perRequest = (row: Row) =>
      ["loader", "gateway", "markets"].reduce((sum, name) => sum + (cpuPerRequest(row, name) ?? 0), 0);
    process.stdout.write(
      `  ${slow.name}: at concurrency 1, ${added >= 0 ? "+" : ""}${added.toFixed(2)} ms at p50 for the gateway's ` +
        `own work, ${ms(gatewayCpu, 0)} ms of CPU per run (its database: ${dbPerRun(slow)} per run, batched ` +
        `writes after the answers, mostly off a run's path), and one more loopback hop. ` +
        `At ${THROUGHPUT_CONNECTIONS} connections the three processes kept ${total(fast).toFixed(2)} cores busy ` +
        `(direct: ${total(direct16).toFixed(2)} for two) at ${ms(perRequest(fast), 0)} ms of CPU per request in all ` +
        `(direct: ${ms(perRequest(direct16), 0)} ms; the gateway's share ${ms(cpuPerRequest(fast, "gateway"), 0)} ms, ` +
        `its database ${dbPerRun(fast)}): ${fast.result.rps.toFixed(0)} req/s against ${direct16.result.rps.toFixed(0)}. ` +
        `The ratio holds only while the cores have room for the gateway's share: on a busy machine it tends ` +
        `to direct CPU / total CPU per request (${(perRequest(direct16) / perRequest(fast)).toFixed(2)} here).\n`,
    );
  }
}
