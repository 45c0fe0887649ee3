import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import { bootstrapLocalChain, LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { isMessageSignedBy } from "@app/payments";
import { encodePaymentSignatureHeader } from "@x402/core/http";
import type { PaymentPayload } from "@x402/core/types";
import { recoverMessageAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { type CpuShares, childPidsNamed, withCpu } from "./cpu.ts";
import { challenge, payingClient, signPayments, siwxHeaders } from "./fortune-clients.ts";
import { ask, forkServer, type LoadResult, load, startServer, stopServer } from "./lib.ts";
import { type FixedResult, percentile, runFixed } from "./loader.ts";
import type { FacilitatorJob, FacilitatorReport, Timing } from "./servers/facilitator.ts";
import type { FortuneServerInfo } from "./servers/fortune.ts";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = 3;
const CONNECTIONS = 32;
const TARGET_402 = 0.5;
/** Issue 7's section 2 targets: twice the reference implementation measured on this machine. */
const TARGET_SIWX_RPS = 1_200;
const TARGET_PAID_P50_MS = 9;
const TARGET_PAID_8_RPS = 140;
const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, Math.round(value)));
/** Paid calls per concurrency (150 and 300 at the default 6 s), each phase also capped in time. */
const PAID_COUNTS = { 1: clamp(SECONDS * 25, 20, 150), 8: clamp(SECONDS * 50, 40, 300) } as const;
const PAID_MAX_SECONDS = Math.max(10, SECONDS * 5);
/** Direct facilitator verify + settle pairs for the time split. */
const FACILITATOR_CALLS = clamp(SECONDS * 5, 10, 30);
// The fresh process must be as warm (JIT) as the service is after its load phases, or it times slower.
const FACILITATOR_WARMUP = 30;
const FACILITATOR_MAX_SECONDS = Math.max(10, SECONDS * 3);
const PRICE_ATOMIC = 1000n;
const PROFILE = "/api/fortune/profile";
const FORTUNE = "/api/fortune";

type Row = {
  name: string;
  concurrency: number;
  rps: number;
  p50: number;
  p99: number;
  ok?: string;
  errors: number;
  /** Ratio to bare and the target it is held to. */
  target?: number;
  /** How busy the server, anvil and the loader were during the timed phase (share of one core). */
  cpu: CpuShares;
};

type Measured<T> = { result: T; cpu: CpuShares };

/**
 * The fortune service under load, on one local chain: unpaid 402 challenges and SIWX profile
 * reads against a bare Hono baseline (alternating rounds, best of each), paid x402 `exact`
 * calls settled on the chain at concurrency 1 and 8, and where a paid call's time goes.
 */
export async function benchFortune(): Promise<void> {
  const servers: ChildProcess[] = [];
  try {
    const started = performance.now();
    const fortune = await forkServer<FortuneServerInfo>("./servers/fortune.ts", 180_000);
    servers.push(fortune.child);
    const bare = await startServer("./servers/bare.ts");
    servers.push(bare.child);
    const info = fortune.message;
    const [anvilPid] = childPidsNamed(fortune.child.pid ?? 0, "anvil");
    const fortunePids = { server: fortune.child.pid, anvil: anvilPid };
    process.stdout.write(
      `\nFortune service started in ${((performance.now() - started) / 1000).toFixed(1)} s ` +
        `(its own process; anvil ${info.chain.rpcUrl}; PGlite in a temp DATA_DIR)\n`,
    );
    const chain = await bootstrapLocalChain({
      rpcUrl: info.chain.rpcUrl,
      deployerPrivateKey: LOCAL_DEV_ACCOUNTS.deployer.privateKey,
      cacheDir: join(info.dataDir, "chain", "contracts"),
    });

    // 1, 2: unpaid 402s and SIWX reads, alternating with the baseline.
    const bareUrl = `http://127.0.0.1:${bare.port}/ping`;
    const siwxWallets = Array.from({ length: 4 }, () => privateKeyToAccount(generatePrivateKey()));
    const prepareSiwx = async (count: number) => {
      const headers = await siwxHeaders(info.url, PROFILE, siwxWallets, count, {
        concurrency: 16,
        maxSeconds: 90,
      });
      return headers.map((header) => ({
        method: "GET" as const,
        path: PROFILE,
        headers: { "sign-in-with-x": header },
      }));
    };
    await runFixed(info.url, await prepareSiwx(64), { concurrency: CONNECTIONS, maxSeconds: 10 });
    const runs = {
      bare: [] as Measured<LoadResult>[],
      unpaid: [] as Measured<LoadResult>[],
      siwx: [] as Measured<FixedResult>[],
    };
    let siwxCount = Math.max(300, SECONDS * 250);
    for (let round = 0; round < ROUNDS; round++) {
      runs.bare.push(
        await withCpu({ server: bare.child.pid }, () =>
          load("bare Hono GET /ping (baseline)", bareUrl, SECONDS, CONNECTIONS),
        ),
      );
      runs.unpaid.push(
        await withCpu(fortunePids, () =>
          load("unpaid 402 POST /api/fortune", `${info.url}${FORTUNE}`, SECONDS, CONNECTIONS, {
            method: "POST",
            expectStatus: 402,
          }),
        ),
      );
      const requests = await prepareSiwx(siwxCount);
      runs.siwx.push(
        await withCpu(fortunePids, () =>
          runFixed(info.url, requests, { concurrency: CONNECTIONS, maxSeconds: SECONDS }),
        ),
      );
      // Enough signed nonces for a full SECONDS at the best rate seen so far, with a margin.
      const bestRate = Math.max(...runs.siwx.map((run) => run.result.rps));
      siwxCount = clamp(bestRate * SECONDS * 1.3 + CONNECTIONS, 300, 12_000);
    }
    const best = <T extends { rps: number }>(rows: Measured<T>[]) =>
      rows.reduce((a, b) => (b.result.rps > a.result.rps ? b : a));
    const baseline = best(runs.bare);
    const unpaid = best(runs.unpaid);
    const siwx = best(runs.siwx);

    // 3, 4: paid calls with real settlement, from the demo payer and three more funded wallets.
    const extraKeys = Array.from({ length: 3 }, () => generatePrivateKey());
    for (const key of extraKeys) await chain.fund(privateKeyToAccount(key).address, "1");
    const clients = [info.demoWallet.privateKey, ...extraKeys].map((key) => payingClient(chain, key));
    const required = await challenge(`${info.url}${FORTUNE}`, { method: "POST" });
    const paidRequests = (payloads: PaymentPayload[]) =>
      payloads.map((payload) => ({
        method: "POST" as const,
        path: FORTUNE,
        headers: { "payment-signature": encodePaymentSignatureHeader(payload) },
      }));
    const payeeBefore = await chain.balanceOf(LOCAL_DEV_ACCOUNTS.payee.address);
    const warmup = await runFixed(info.url, paidRequests(await signPayments(clients, required, 5)), {
      concurrency: 1,
      maxSeconds: 10,
    });
    const paid = {} as Record<1 | 8, Measured<FixedResult>>;
    for (const concurrency of [1, 8] as const) {
      const requests = paidRequests(await signPayments(clients, required, PAID_COUNTS[concurrency]));
      paid[concurrency] = await withCpu(fortunePids, () =>
        runFixed(info.url, requests, { concurrency, maxSeconds: PAID_MAX_SECONDS }),
      );
    }

    // 5: the facilitator alone, timed from outside in a fresh process, on the same chain and payload kind.
    const requirements = required.accepts[0];
    if (!requirements) throw new Error("the 402 carries no x402 requirements");
    const probe = await forkServer<{ ready: true }>("./servers/facilitator.ts");
    servers.push(probe.child);
    const direct = await ask<FacilitatorReport>(
      probe.child,
      {
        rpcUrl: info.chain.rpcUrl,
        chainId: info.chain.chainId,
        requirements,
        payloads: await signPayments(clients, required, FACILITATOR_WARMUP + FACILITATOR_CALLS),
        warmup: FACILITATOR_WARMUP,
        maxSeconds: FACILITATOR_MAX_SECONDS,
      } satisfies FacilitatorJob,
      (FACILITATOR_MAX_SECONDS + 60) * 1000,
    );
    await stopServer(probe.child);
    const recovery = await signatureRecoveryMs();
    const payeeAfter = await chain.balanceOf(LOCAL_DEV_ACCOUNTS.payee.address);

    // Report.
    const rows: Row[] = [
      { ...baseline.result, concurrency: CONNECTIONS, cpu: baseline.cpu },
      { ...unpaid.result, concurrency: CONNECTIONS, cpu: unpaid.cpu, target: TARGET_402 },
      fixedRow("SIWX GET /api/fortune/profile", siwx, CONNECTIONS),
      fixedRow("paid x402 exact POST /api/fortune", paid[1], 1),
      fixedRow("paid x402 exact POST /api/fortune", paid[8], 8),
    ];
    printRows(
      `Fortune service on one local chain (anvil, PGlite); ${CONNECTIONS}-connection rows: best of ${ROUNDS} ` +
        `alternating rounds × ${SECONDS}s; paid rows: ${PAID_COUNTS[1]} and ${PAID_COUNTS[8]} pre-signed ` +
        `payments, settled on chain. srv / anvil / load: CPU of the server process, anvil and this loader ` +
        `during the timed phase, in cores (over 100%: GC and helper threads); srv ms/req = srv ÷ req/s.`,
      rows,
      baseline.result.rps,
    );
    for (const row of rows) {
      if (row.target === undefined) continue;
      const ratio = row.rps / baseline.result.rps;
      process.stdout.write(
        `  ${row.name} / bare = ${ratio.toFixed(3)} (target ≥ ${row.target}: ${ratio >= row.target ? "met" : "NOT met"})\n`,
      );
    }
    const verdict = (met: boolean) => (met ? "met" : "NOT met");
    process.stdout.write(
      `  SIWX reads: ${siwx.result.rps.toFixed(0)}/s (target ≥ ${TARGET_SIWX_RPS}/s: ` +
        `${verdict(siwx.result.rps >= TARGET_SIWX_RPS)})\n` +
        `  paid x402 exact, concurrency 1: p50 ${paid[1].result.p50.toFixed(1)} ms (target ≤ ${TARGET_PAID_P50_MS} ms: ` +
        `${verdict(paid[1].result.p50 <= TARGET_PAID_P50_MS)})\n` +
        `  paid x402 exact, concurrency 8: ${paid[8].result.rps.toFixed(0)}/s (target ≥ ${TARGET_PAID_8_RPS}/s: ` +
        `${verdict(paid[8].result.rps >= TARGET_PAID_8_RPS)})\n`,
    );
    process.stdout.write(
      `  SIWX signature check: ${recovery.native.toFixed(3)} ms native (libsecp256k1, what the service uses) ` +
        `vs ${recovery.pureJs.toFixed(2)} ms pure JS (viem); the rest of a SIWX read is message validation ` +
        `and the nonce's atomic spend in the database\n`,
    );
    const received = (payeeAfter - payeeBefore) / PRICE_ATOMIC;
    const expected = BigInt(warmup.ok + paid[1].result.ok + paid[8].result.ok + direct.settled);
    process.stdout.write(
      `  on chain: the payee received ${received} payments of 0.001 (${warmup.ok} warm-up + ` +
        `${paid[1].result.ok} + ${paid[8].result.ok} timed 200s + ${direct.settled} direct settles): ` +
        `${received === expected ? "matches" : `MISMATCH, expected ${expected}`}\n`,
    );
    printTimeSplit(paid, direct, unpaid.result.rps, siwx.result.rps, recovery.native);
  } finally {
    for (const child of servers.reverse()) await stopServer(child);
  }
}

function printTimeSplit(
  paid: Record<1 | 8, Measured<FixedResult>>,
  direct: FacilitatorReport,
  unpaidRps: number,
  siwxRps: number,
  recoveryMs: number,
): void {
  const p50 = (timings: Timing[], key: keyof Timing) =>
    percentile(
      timings.map((t) => t[key]),
      0.5,
    );
  const e2e = paid[1].result.p50;
  const verify = { wall: p50(direct.verify, "wallMs"), cpu: p50(direct.verify, "cpuMs") };
  const settle = { wall: p50(direct.settle, "wallMs"), cpu: p50(direct.settle, "cpuMs") };
  const rest = e2e - verify.wall - settle.wall;
  const num = (ms: number) => (Number.isFinite(ms) ? ms.toFixed(1) : "—").padStart(8);
  const share = (ms: number) => `${((ms / e2e) * 100).toFixed(0)}%`.padStart(6);
  process.stdout.write(
    `\nWhere the time goes in a paid call: p50 ms; the facilitator (createLocalFacilitator) timed directly ` +
      `in a fresh process on the same chain, ${direct.verify.length} verify + settle pairs after ${FACILITATOR_WARMUP} warm-up` +
      `${direct.failures ? `, ${direct.failures} FAILED` : ""}\n`,
  );
  process.stdout.write(
    `  ${"".padEnd(56)} ${"wall".padStart(8)} ${"share".padStart(6)} ${"JS CPU".padStart(8)} ${"waiting".padStart(8)}\n`,
  );
  const line = (name: string, wall: number, cpu?: number) =>
    process.stdout.write(
      `  ${name.padEnd(56)} ${num(wall)} ${share(wall)}` +
        (cpu === undefined ? "\n" : ` ${num(cpu)} ${num(wall - cpu)}\n`),
    );
  line("end-to-end paid call, concurrency 1 (client side)", e2e);
  line("  facilitator verify (native signature, eth_call sim.)", verify.wall, verify.cpu);
  line("  facilitator settle (no re-verify; simulate, sign, send, receipt)", settle.wall, settle.cpu);
  // Medians from two processes: the difference is approximate, and within its error when near zero.
  line("  the rest: HTTP, payment gate, PGlite ledger, fortune", Math.max(rest, 0));
  const facilitatorMs = verify.wall + settle.wall;
  const ownWork =
    rest > 0
      ? `${rest.toFixed(1)} ms`
      : "within the measurement's error (the split subtracts medians of two processes)";
  const facilitatorCpu = verify.cpu + settle.cpu;
  const server8 = paid[8].cpu.server;
  const anvil8 = paid[8].cpu.anvil;
  const pct = (value: number | undefined) => (value === undefined ? "?" : `${(value * 100).toFixed(0)}%`);
  const serverBound = server8 !== undefined && server8 >= 0.85;
  process.stdout.write(
    `  Conclusion: verification and settlement are ${Math.min(100, (facilitatorMs / e2e) * 100).toFixed(0)}% of a paid ` +
      `call (${facilitatorMs.toFixed(1)} of ${e2e.toFixed(1)} ms p50); the service's own work is ` +
      `${ownWork}. Of the facilitator's time, ${((facilitatorCpu / facilitatorMs) * 100).toFixed(0)}% ` +
      `is its own JS CPU (JSON-RPC, ABI/RLP encoding, keccak; secp256k1 recovery and signing are native) and ` +
      `${(((facilitatorMs - facilitatorCpu) / facilitatorMs) * 100).toFixed(0)}% waiting on anvil. ` +
      `In the service that CPU runs in-process, on the server's event loop (the server spends ` +
      `${server8 === undefined ? "?" : ((server8 / paid[8].result.rps) * 1000).toFixed(1)} ms ` +
      `of CPU per paid call, ledger writes included): at concurrency 8 the server process was ${pct(server8)} of a core busy and ` +
      `anvil ${pct(anvil8)}, so paid throughput grew ${(paid[8].result.rps / paid[1].result.rps).toFixed(1)}× ` +
      `(to ${paid[8].result.rps.toFixed(0)}/s, p50 ${paid[8].result.p50.toFixed(1)} ms): ` +
      `${serverBound ? "the server's CPU, not the chain, is the limit" : "the server's CPU is not saturated: what else runs on this machine shares its two cores"}. ` +
      `Unpaid 402s (${unpaidRps.toFixed(0)}/s) and SIWX reads (${siwxRps.toFixed(0)}/s, ` +
      `${recoveryMs.toFixed(2)} ms of native signature recovery each) touch no chain and are server-CPU bound too.\n`,
  );
}

function fixedRow(name: string, measured: Measured<FixedResult>, concurrency: number): Row {
  const { result, cpu } = measured;
  const other = Object.entries(result.statuses)
    .filter(([status]) => status !== "200")
    .map(([status, count]) => `${status === "0" ? "net" : status}×${count}`);
  return {
    name,
    concurrency,
    rps: result.rps,
    p50: result.p50,
    p99: result.p99,
    ok: `${result.ok}/${result.sent} in ${result.seconds.toFixed(1)}s${other.length ? ` (${other.join(" ")})` : ""}`,
    errors: result.errors,
    cpu,
  };
}

/** Server CPU per served request, ms: the server's busy share of a core over its throughput. */
function perRequest(row: Row): string {
  const server = row.cpu.server;
  if (server === undefined || row.rps <= 0) return "—";
  const ms = (server / row.rps) * 1000;
  return ms < 1 ? ms.toFixed(3) : ms.toFixed(1);
}

function printRows(title: string, rows: Row[], baselineRps: number): void {
  const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : "—").padStart(7);
  const pct = (value: number | undefined) =>
    (value === undefined ? "—" : `${(value * 100).toFixed(0)}%`).padStart(5);
  process.stdout.write(`\n${title}\n`);
  process.stdout.write(
    `  ${"case".padEnd(34)} ${"conc".padStart(4)} ${"req/s".padStart(7)} ${"p50 ms".padStart(7)} ` +
      `${"p99 ms".padStart(7)} ${"vs bare".padStart(7)} ${"target".padStart(6)} ${"srv".padStart(5)} ` +
      `${"anvil".padStart(5)} ${"load".padStart(5)} ${"srv ms/req".padStart(10)} errors  ok/sent\n`,
  );
  for (const row of rows) {
    const target = row.target === undefined ? "" : `≥${row.target}`;
    process.stdout.write(
      `  ${row.name.padEnd(34)} ${String(row.concurrency).padStart(4)} ${row.rps.toFixed(0).padStart(7)} ` +
        `${ms(row.p50)} ${ms(row.p99)} ${(row.rps / baselineRps).toFixed(3).padStart(7)} ${target.padStart(6)} ` +
        `${pct(row.cpu.server)} ${pct(row.cpu.anvil)} ${pct(row.cpu.loader)} ${perRequest(row).padStart(10)} ` +
        `${String(row.errors).padStart(6)}  ${row.ok ?? ""}\n`,
    );
  }
}

/**
 * Median ms of one SIWX signature check: the native one the service uses
 * (`isMessageSignedBy`, libsecp256k1) and viem's pure-JS recovery for comparison
 * (≤ 200 tries, ≤ 2 s each).
 */
async function signatureRecoveryMs(): Promise<{ native: number; pureJs: number }> {
  const account = privateKeyToAccount(generatePrivateKey());
  const message = "bench";
  const signature = await account.signMessage({ message });
  const median = async (check: () => unknown) => {
    const times: number[] = [];
    const deadline = performance.now() + 2000;
    for (let i = 0; i < 200 && performance.now() < deadline; i++) {
      const t0 = performance.now();
      await check();
      times.push(performance.now() - t0);
    }
    return percentile(times.slice(Math.min(10, times.length - 1)), 0.5);
  };
  return {
    native: await median(() => isMessageSignedBy(account.address, message, signature)),
    pureJs: await median(() => recoverMessageAddress({ message, signature })),
  };
}
