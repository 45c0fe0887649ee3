import { type Clock, type Logger, type Stoppable, systemClock, type TextSealer } from "@app/core";
import type { Database } from "@app/db";
import { makeAttempt } from "./attempt.ts";
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  DEFAULT_CLAIM_SHARES,
  type Settlement,
  settleAttempt,
} from "./delivery-store.ts";
import { fanOutEvents } from "./fan-out.ts";
import { DEFAULT_WEBHOOK_RETRY, type WebhookRetryPolicy } from "./retry-schedule.ts";
import type { WebhookSender } from "./sender.ts";

/** How a process's webhook worker runs unless told otherwise (and the configuration's defaults). */
export const WEBHOOK_WORKER_DEFAULTS = {
  /** Attempts in flight at once in this process (one account holds at most half of them). */
  concurrency: 64,
  /** How long to wait before looking again when nothing was due. */
  pollIntervalMs: 500,
  /** How long a claimed delivery is held (well past the sender's 15 s limit). */
  leaseMs: 60_000,
  /** Events fanned out per transaction. */
  fanOutBatch: 500,
  /** Deliveries of one endpoint in flight at once, across every process. */
  endpointInFlight: DEFAULT_CLAIM_SHARES.perEndpoint,
  /**
   * Deliveries of one account in flight at once, across every process. Each process also holds an
   * account to half of its own slots, so that one account's hanging receivers always leave room
   * for others.
   */
  accountInFlight: DEFAULT_CLAIM_SHARES.perAccount,
} as const;

/**
 * Pacing under load, when finished attempts keep waking the loop: a turn (fan-out and claim) at
 * most every 20 ms, so that one claim takes the slots freed meanwhile rather than one each; the
 * outbox read at most every 100 ms (each read is a transaction; the pause when idle is longer).
 */
const MIN_TURN_GAP_MS = 20;
const MIN_FAN_OUT_GAP_MS = 100;

/** How a process's webhook worker runs (see {@link WEBHOOK_WORKER_DEFAULTS}). */
export type WebhookWorkerOptions = {
  concurrency?: number;
  pollIntervalMs?: number;
  leaseMs?: number;
  fanOutBatch?: number;
  endpointInFlight?: number;
  accountInFlight?: number;
};

/** What one account may hold in flight in a process of `slots` slots: half of them (at least one). */
const processAccountShare = (slots: number): number => Math.max(1, Math.floor(slots / 2));

/** What the webhook worker is built from. */
export type WebhookWorkerDeps = {
  db: Database;
  logger: Logger;
  clock?: Clock;
  sender: WebhookSender;
  /** Opens the endpoints' secrets (`createWebhookSealer`). */
  sealer: TextSealer;
  /** This process's id in the attempts it records. */
  workerId: string;
  policy?: Partial<WebhookRetryPolicy>;
  /** In [0, 1): the retry delays' jitter (Math.random by default). */
  random?: () => number;
};

/** The webhook worker: fan-out from the outbox, then claimed deliveries sent and settled. */
export type WebhookWorker = {
  /** Fans out what the outbox holds now (until it is drained or another process is at it). */
  fanOut(): Promise<number>;
  /**
   * Claims up to `limit` due deliveries (each endpoint's and account's share in flight held to,
   * as in the loop with `limit` slots) and makes their attempts; resolves when all are settled.
   */
  deliverDue(limit?: number): Promise<Settlement[]>;
  /** Starts the loop (this process's share of the work) until stopped. */
  start(options?: WebhookWorkerOptions): Stoppable;
};

/** Builds the webhook worker. */
export function createWebhookWorker(deps: WebhookWorkerDeps): WebhookWorker {
  const clock = deps.clock ?? systemClock;
  const policy = { ...DEFAULT_WEBHOOK_RETRY, ...deps.policy };
  const attemptDeps = {
    clock,
    sealer: deps.sealer,
    sender: deps.sender,
    policy,
    random: deps.random ?? Math.random,
  };

  async function fanOut(batch: number = WEBHOOK_WORKER_DEFAULTS.fanOutBatch): Promise<number> {
    let total = 0;
    for (;;) {
      const result = await fanOutEvents(deps.db, { now: clock.now(), batch });
      if (result === "busy") return total;
      total += result.deliveries;
      if (result.events < batch) return total;
    }
  }

  async function claim(
    limit: number,
    options: ClaimOptions,
    held: ReadonlyMap<string, number>,
  ): Promise<ClaimedDelivery[]> {
    const now = clock.now();
    return claimDueDeliveries(deps.db, {
      workerId: deps.workerId,
      now,
      leaseUntil: new Date(now.getTime() + options.leaseMs),
      limit,
      perEndpoint: options.endpointInFlight,
      perAccount: options.accountInFlight,
      processShare: { perAccount: processAccountShare(options.concurrency), held },
    });
  }

  async function attempt(claimed: ClaimedDelivery): Promise<Settlement> {
    const record = await makeAttempt(attemptDeps, claimed);
    const settlement = await settleAttempt(deps.db, { claim: claimed, record, now: clock.now(), policy });
    const facts = {
      deliveryId: claimed.id,
      endpointId: claimed.endpoint.endpointId,
      eventId: claimed.event.id,
      attempt: claimed.attempt,
      status: record.responseStatus,
      latencyMs: record.latencyMs,
    };
    if (record.delivered) deps.logger.debug(facts, "webhook delivered");
    else
      deps.logger.info({ ...facts, error: record.error, retryAt: record.retryAt }, "webhook attempt failed");
    if (settlement.endpointPausedUntil) {
      deps.logger.warn(
        { endpointId: claimed.endpoint.endpointId, pausedUntil: settlement.endpointPausedUntil },
        "webhook endpoint paused after timeouts in a row",
      );
    }
    if (settlement.endpointDisabled) {
      deps.logger.warn(
        { endpointId: claimed.endpoint.endpointId },
        "webhook endpoint disabled after persistent failure",
      );
    }
    return settlement;
  }

  return {
    fanOut: () => fanOut(),
    async deliverDue(limit = WEBHOOK_WORKER_DEFAULTS.concurrency) {
      const claimed = await claim(limit, { ...WEBHOOK_WORKER_DEFAULTS, concurrency: limit }, new Map());
      return Promise.all(claimed.map(attempt));
    },
    start(options = {}) {
      return runLoop(
        { ...WEBHOOK_WORKER_DEFAULTS, ...options },
        { fanOut, claim, attempt, logger: deps.logger, close: () => deps.sender.close() },
      );
    },
  };
}

/** What a claim is bounded by: the process's slots, the lease, the shares in flight. */
type ClaimOptions = Pick<
  Required<WebhookWorkerOptions>,
  "concurrency" | "leaseMs" | "endpointInFlight" | "accountInFlight"
>;

type LoopParts = {
  fanOut(batch: number): Promise<number>;
  claim(limit: number, options: ClaimOptions, held: ReadonlyMap<string, number>): Promise<ClaimedDelivery[]>;
  attempt(claimed: ClaimedDelivery): Promise<Settlement>;
  logger: Logger;
  close(): void;
};

/**
 * The loop: fans out, claims into the free slots, sends each claimed delivery without waiting
 * for it, and pauses `pollIntervalMs` when nothing more was due (a finished attempt ends the
 * pause, its slot being free). `stop()` claims nothing more and waits for the attempts in flight.
 */
function runLoop(options: Required<WebhookWorkerOptions>, parts: LoopParts): Stoppable {
  let running = true;
  let active = 0;
  /** This process's attempts in flight, by account (what its share of each is counted from). */
  const heldByAccount = new Map<string, number>();
  const inFlight = new Set<Promise<unknown>>();
  // A finished attempt wakes the loop; one that finishes while the loop is claiming (not pausing)
  // makes its next pause end at once.
  let woken = false;
  let endPause: (() => void) | undefined;
  const wake = () => {
    woken = true;
    endPause?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        endPause = undefined;
        woken = false;
        resolve();
      }
      if (woken) done();
      else endPause = done;
    });

  let lastFanOut = Number.NEGATIVE_INFINITY;
  async function turn(): Promise<boolean> {
    if (performance.now() - lastFanOut >= MIN_FAN_OUT_GAP_MS) {
      lastFanOut = performance.now();
      await parts.fanOut(options.fanOutBatch);
    }
    // Stopped while fanning out (a backlog's fan-out runs batch after batch): claim nothing more.
    if (!running) return false;
    const free = options.concurrency - active;
    if (free <= 0) return false;
    const claimed = await parts.claim(free, options, heldByAccount);
    for (const delivery of claimed) {
      active += 1;
      heldByAccount.set(delivery.accountId, (heldByAccount.get(delivery.accountId) ?? 0) + 1);
      const run = parts
        .attempt(delivery)
        .catch((error: unknown) =>
          parts.logger.error({ err: error, deliveryId: delivery.id }, "recording a webhook attempt failed"),
        )
        .finally(() => {
          active -= 1;
          const left = (heldByAccount.get(delivery.accountId) ?? 1) - 1;
          if (left > 0) heldByAccount.set(delivery.accountId, left);
          else heldByAccount.delete(delivery.accountId);
          inFlight.delete(run);
          wake();
        });
      inFlight.add(run);
    }
    return claimed.length === free;
  }

  const loop = (async () => {
    let turnStarted = Number.NEGATIVE_INFINITY;
    while (running) {
      const gap = MIN_TURN_GAP_MS - (performance.now() - turnStarted);
      if (gap > 0) await new Promise((resolve) => setTimeout(resolve, gap));
      turnStarted = performance.now();
      let again = false;
      try {
        again = await turn();
      } catch (error) {
        parts.logger.error({ err: error }, "webhook fan-out or claim failed");
      }
      if (running && !again) await pause(options.pollIntervalMs);
    }
  })();

  return {
    async stop() {
      running = false;
      wake();
      await loop;
      await Promise.all(inFlight);
      parts.close();
    },
  };
}
