import type { Logger } from "@app/core";
import type { Queryable } from "@app/db";
import type { RunOutcome } from "./runs.ts";

/** A free run, finished: its usage record and its ledger row of 0, still to be written. */
export type FreeRunRecord = {
  id: string;
  accountId: string;
  keyId: string;
  provider: string;
  endpoint: string;
  method: string;
  outcome: RunOutcome;
  upstreamStatus: number | null;
  durationMs: number;
  startedAt: Date;
  finishedAt: Date;
  /** The `Idempotency-Key` the run was sent with. */
  idempotencyKey?: string;
  /** The id of the request that ran it. */
  requestId?: string;
  /** The output answered, for an account that keeps its runs' outputs. */
  output?: string;
};

export type UsageWriterOptions = {
  /** How long a record may wait for its batch (default 100 ms). */
  flushMs?: number;
  /** A batch is written at once when this many records wait (default 500). */
  maxBatch?: number;
  /** A batch is written at once when the outputs it keeps reach this many characters (default 4 Mi). */
  maxOutputChars?: number;
  /** Attempts at writing a batch before its records are dropped, logged (default 5). */
  maxAttempts?: number;
};

/**
 * Writes the usage records and zero ledger rows of free runs behind the response, in batches:
 * one statement per batch (at most `flushMs` after a run, or at once past `maxBatch` records), so
 * a free run costs the database nothing on its path. What that changes: when a free run answers,
 * its rows are not yet written; they are within `flushMs` (plus the statement's time), and
 * `flush()` (called by the service's stop) writes whatever waits. A crash before then loses them:
 * a free run moves no money, so only the usage record of a run the caller already got is lost.
 * A batch that fails is retried (backing off) up to `maxAttempts` times, then dropped with an
 * error log naming its runs. Priced runs never come here: they are charged and recorded in the
 * database before their upstream call, and finished before they answer.
 */
export class UsageWriter {
  private queue: FreeRunRecord[] = [];
  /** Characters of kept outputs waiting in the queue. */
  private queuedOutputChars = 0;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private failures = 0;
  private readonly flushMs: number;
  private readonly maxBatch: number;
  private readonly maxOutputChars: number;
  private readonly maxAttempts: number;

  constructor(
    private readonly db: Queryable,
    private readonly logger: Logger,
    options: UsageWriterOptions = {},
  ) {
    this.flushMs = options.flushMs ?? 100;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxOutputChars = options.maxOutputChars ?? 4 * 1024 * 1024;
    this.maxAttempts = options.maxAttempts ?? 5;
  }

  /** Queues a finished free run; it is written with the next batch. */
  record(run: FreeRunRecord): void {
    this.queue.push(run);
    this.queuedOutputChars += run.output?.length ?? 0;
    // Kept outputs can be large (up to the upstream's size cap each): they do not wait long in memory.
    const full = this.queue.length >= this.maxBatch || this.queuedOutputChars >= this.maxOutputChars;
    if (full) void this.flush();
    else this.schedule(this.flushMs);
  }

  /** How many records wait to be written. */
  get pending(): number {
    return this.queue.length;
  }

  /** Writes everything queued so far (one statement per `maxBatch`); resolves once written or dropped. */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.writing = this.writing.then(() => this.writeQueued());
    return this.writing;
  }

  private schedule(delayMs: number): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private async writeQueued(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.queuedOutputChars = this.queue.reduce((sum, run) => sum + (run.output?.length ?? 0), 0);
      try {
        await writeFreeRuns(this.db, batch);
        this.failures = 0;
      } catch (error) {
        this.failures += 1;
        if (this.failures >= this.maxAttempts) {
          this.failures = 0;
          this.logger.error(
            { err: error, runs: batch.length, runIds: batch.map((run) => run.id) },
            "usage records of free runs could not be written; dropped",
          );
          continue;
        }
        this.queue = batch.concat(this.queue);
        this.queuedOutputChars = this.queue.reduce((sum, run) => sum + (run.output?.length ?? 0), 0);
        this.logger.warn(
          { err: error, runs: batch.length },
          "usage records of free runs not written; retrying",
        );
        this.schedule(Math.min(5_000, this.flushMs * 2 ** this.failures));
        return;
      }
    }
  }
}

/**
 * Inserts finished free runs and their ledger rows of 0 (the balance they left: the account's
 * balance when written) in one statement. A run already written (a retried batch) is skipped,
 * with its ledger row.
 */
export async function writeFreeRuns(db: Queryable, runs: readonly FreeRunRecord[]): Promise<void> {
  if (runs.length === 0) return;
  const column = <T>(pick: (run: FreeRunRecord) => T) => runs.map(pick);
  await db.query(
    `WITH input AS (
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                            $7::text[], $8::int[], $9::int[], $10::timestamptz[], $11::timestamptz[],
                            $12::text[], $13::text[], $14::text[])
         AS t(id, account_id, key_id, provider, endpoint, method, outcome, upstream_status, duration_ms,
              created_at, finished_at, idempotency_key, request_id, output)
     ), written AS (
       INSERT INTO gateway.runs (id, account_id, key_id, provider, endpoint, method, cost_micro, outcome,
                                 upstream_status, duration_ms, created_at, finished_at, idempotency_key,
                                 request_id, output)
       SELECT id, account_id, key_id, provider, endpoint, method, 0, outcome, upstream_status, duration_ms,
              created_at, finished_at, idempotency_key, request_id, output
       FROM input
       ON CONFLICT (id) DO NOTHING
       RETURNING id, account_id, created_at
     )
     INSERT INTO gateway.ledger (account_id, kind, amount_micro, balance_after_micro, run_id, created_at)
     SELECT written.account_id, 'run', 0, accounts.balance_micro, written.id, written.created_at
     FROM written JOIN gateway.accounts ON accounts.id = written.account_id
     ORDER BY written.created_at, written.id`,
    [
      column((run) => run.id),
      column((run) => run.accountId),
      column((run) => run.keyId),
      column((run) => run.provider),
      column((run) => run.endpoint),
      column((run) => run.method),
      column((run) => run.outcome),
      column((run) => run.upstreamStatus),
      column((run) => run.durationMs),
      column((run) => run.startedAt.toISOString()),
      column((run) => run.finishedAt.toISOString()),
      column((run) => run.idempotencyKey ?? null),
      column((run) => run.requestId ?? null),
      column((run) => run.output ?? null),
    ],
  );
}
