import { Agent, request } from "node:http";

/** One prepared request of a {@link runFixed} run (each is sent at most once). */
export type FixedRequest = {
  method: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
};

export type FixedResult = {
  /** Requests sent (≤ the prepared count: the run also stops at its deadline). */
  sent: number;
  /** Responses with the expected status. */
  ok: number;
  /** Any other outcome: other statuses and network errors. */
  errors: number;
  /** Count per status (0 for a network error), to explain errors. */
  statuses: Record<number, number>;
  seconds: number;
  /** `ok / seconds`. */
  rps: number;
  /** Latency percentiles of the expected-status responses, ms. */
  p50: number;
  p99: number;
  /** Every expected-status latency, ms, in completion order. */
  latencies: number[];
};

/**
 * A bounded closed-loop load generator: `concurrency` workers on keep-alive loopback
 * sockets send the prepared requests in order, one each, until they run out or
 * `maxSeconds` passes. For requests that are single use (signed nonces, payments),
 * which autocannon's fixed request templates cannot express.
 */
export async function runFixed(
  origin: string,
  requests: FixedRequest[],
  options: { concurrency: number; maxSeconds: number; expectStatus?: number },
): Promise<FixedResult> {
  const url = new URL(origin);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const expected = options.expectStatus ?? 200;
  const statuses: Record<number, number> = {};
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + options.maxSeconds * 1000;

  const send = (prepared: FixedRequest) =>
    new Promise<number>((resolve) => {
      const req = request(
        {
          agent,
          host: url.hostname,
          port: url.port,
          method: prepared.method,
          path: prepared.path,
          headers: { ...prepared.headers, "content-length": String(Buffer.byteLength(prepared.body ?? "")) },
          timeout: 30_000,
        },
        (res) => {
          res.resume();
          res.once("end", () => resolve(res.statusCode ?? 0));
          res.once("error", () => resolve(0));
        },
      );
      req.once("timeout", () => req.destroy(new Error("timeout")));
      req.once("error", () => resolve(0));
      req.end(prepared.body);
    });

  const worker = async () => {
    while (next < requests.length && performance.now() < deadline) {
      const prepared = requests[next++] as FixedRequest;
      const begin = performance.now();
      const status = await send(prepared);
      statuses[status] = (statuses[status] ?? 0) + 1;
      if (status === expected) latencies.push(performance.now() - begin);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  return {
    sent: next,
    ok: latencies.length,
    errors,
    statuses,
    seconds,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    latencies,
  };
}

/** The `q` quantile (nearest rank) of a list of numbers; NaN when empty. */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}

/** Runs `task` over `items` with at most `concurrency` in flight; results in input order. */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T, index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}
