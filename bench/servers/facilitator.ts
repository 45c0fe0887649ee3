import { createLocalFacilitator } from "@app/payments";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { spareKey } from "../fortune-clients.ts";

/** What the bench asks of this probe. */
export type FacilitatorJob = {
  rpcUrl: string;
  chainId: number;
  requirements: PaymentRequirements;
  payloads: PaymentPayload[];
  /** Leading pairs run but not reported (JIT, connections, nonce cache). */
  warmup: number;
  maxSeconds: number;
};

/** Wall and CPU (this process, all threads) ms of one call. */
export type Timing = { wallMs: number; cpuMs: number };

export type FacilitatorReport = { verify: Timing[]; settle: Timing[]; settled: number; failures: number };

/**
 * The in-process x402 facilitator the service runs (`createLocalFacilitator`), alone in a
 * fresh process like the server's, timing `verify` then `settle` of each payload in turn on
 * the bench's chain. Its signer is a spare funded account, so its transaction nonces never
 * race the service's facilitator.
 */
async function run(job: FacilitatorJob): Promise<FacilitatorReport> {
  const facilitator = createLocalFacilitator({
    rpcUrl: job.rpcUrl,
    chainId: job.chainId,
    signerPrivateKey: spareKey(),
  });
  const report: FacilitatorReport = { verify: [], settle: [], settled: 0, failures: 0 };
  const deadline = performance.now() + job.maxSeconds * 1000;
  for (const [i, payload] of job.payloads.entries()) {
    if (performance.now() > deadline) break;
    const verify = await timed(() => facilitator.verify(payload, job.requirements));
    const settle = verify.result.isValid
      ? await timed(() => facilitator.settle(payload, job.requirements))
      : undefined;
    if (!settle?.result.success) {
      report.failures++;
      continue;
    }
    report.settled++;
    if (i < job.warmup) continue;
    report.verify.push({ wallMs: verify.wallMs, cpuMs: verify.cpuMs });
    report.settle.push({ wallMs: settle.wallMs, cpuMs: settle.cpuMs });
  }
  return report;
}

async function timed<T>(call: () => Promise<T>): Promise<Timing & { result: T }> {
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  const result = await call();
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  return { result, wallMs, cpuMs: (used.user + used.system) / 1000 };
}

process.once("message", (job: FacilitatorJob) => {
  run(job).then(
    (report) => process.send?.(report),
    (error: unknown) => {
      process.stderr.write(`facilitator probe: ${error instanceof Error ? error.message : error}\n`);
      process.exit(1);
    },
  );
});
process.on("disconnect", () => process.exit(0));
process.send?.({ ready: true });
