import type { Database, Queryable } from "@app/db";
import type { PublisherEventType } from "../contracts/events.ts";
import { appendEvent } from "../store/events.ts";
import type { SealedSecrets } from "./endpoint-store.ts";
import { endpointPauseMs, shouldDisableEndpoint, type WebhookRetryPolicy } from "./retry-schedule.ts";

/** The event a delivery carries, as its payload is built from it. */
export type DeliveredEvent = {
  id: string;
  type: PublisherEventType;
  postId: string | null;
  targetId: string | null;
  data: Record<string, unknown>;
  occurredAt: Date;
};

/** A delivery a worker holds (its lease) for one attempt, with what the attempt needs. */
export type ClaimedDelivery = {
  id: string;
  /** The endpoint's account (a process holds each account to its share of its own slots). */
  accountId: string;
  /** This attempt's number within the delivery (1 for the first). */
  attempt: number;
  /** The claim's own token: the settlement is conditional on it. */
  leaseToken: string;
  /** Set by a resend of a finished delivery: the attempt after which no other is scheduled. */
  finalAttempt: number | null;
  /** Whether the endpoint was in a failure streak when claimed (a success then ends it). */
  endpointFailing: boolean;
  endpoint: SealedSecrets & { url: string };
  event: DeliveredEvent;
};

type ClaimRow = Omit<ClaimedDelivery, "endpoint" | "event" | "endpointFailing"> & {
  failing: boolean;
} & SealedSecrets & { url: string; eventId: string } & Omit<DeliveredEvent, "id">;

/** What a claim may take: in all, and in flight at once per endpoint and per account. */
export type ClaimLimits = {
  /** Deliveries claimed by this call at most (the caller's free slots). */
  limit: number;
  /** Deliveries of one endpoint in flight at once, every worker's leases counted. */
  perEndpoint?: number;
  /** Deliveries of one account's endpoints in flight at once, every worker's leases counted. */
  perAccount?: number;
  /**
   * This process's own share: deliveries of one account it may hold at once, counting those it
   * holds already (`held`, by account). Unset: no share of its own beyond `perAccount`.
   */
  processShare?: { perAccount: number; held: ReadonlyMap<string, number> };
};

/**
 * The shares in flight a claim holds to unless told otherwise, every process counted: what one
 * receiver and one account may be sent at once. A process also holds each account to half of its
 * own slots (delivery-worker.ts), which is what keeps one account's hanging receivers from taking
 * every slot.
 */
export const DEFAULT_CLAIM_SHARES = { perEndpoint: 64, perAccount: 64 } as const;

/** Claims run one at a time across processes, so that each counts the leases of those before. */
const CLAIM_LOCK = "SELECT pg_advisory_xact_lock(hashtext('publisher.webhook_claim'))";

/**
 * Claims up to `limit` due deliveries for `workerId`, shared fairly: only of enabled endpoints
 * not paused (an endpoint timing out is paused as a whole: retry-schedule.ts), at most
 * `perEndpoint` in flight per endpoint and `perAccount` per account ({@link DEFAULT_CLAIM_SHARES}
 * unless told; the live leases of every worker counted: claims take turns under a
 * transaction-scoped advisory lock) and, with `processShare`, at most its `perAccount` held by
 * this process (its own count, which it keeps), each endpoint's
 * oldest due first and the accounts served in turn (each account's first, then each one's
 * second, …), so that one account's backlog or hanging receivers never fill every slot. The
 * endpoints are found by a skip scan of the pending deliveries' index (one probe per endpoint with
 * a pending delivery, however long its backlog). Each claimed delivery is locked (`FOR UPDATE
 * SKIP LOCKED`), given a lease until `leaseUntil` and a fresh token, its attempt count raised and
 * the attempt recorded as started, all in one statement. A delivery whose worker died mid-attempt
 * is due again once its lease ends (its attempt stays recorded, unfinished).
 */
export async function claimDueDeliveries(
  db: Database,
  input: { workerId: string; now: Date; leaseUntil: Date } & ClaimLimits,
): Promise<ClaimedDelivery[]> {
  const perEndpoint = input.perEndpoint ?? DEFAULT_CLAIM_SHARES.perEndpoint;
  const perAccount = input.perAccount ?? DEFAULT_CLAIM_SHARES.perAccount;
  const held = input.processShare?.held ?? new Map<string, number>();
  if (input.limit <= 0 || perEndpoint <= 0 || perAccount <= 0) return [];
  const rows = await db.transaction(async (tx) => {
    // Lost in a crash, a claim is a delivery due again: no disk flush of its own.
    await tx.query("SET LOCAL synchronous_commit = off");
    await tx.query(CLAIM_LOCK);
    return tx.query<ClaimRow>(
      `WITH RECURSIVE pending_endpoints AS (
         (SELECT d.endpoint_id FROM publisher.webhook_deliveries d
          WHERE d.status = 'pending' ORDER BY d.endpoint_id LIMIT 1)
         UNION ALL
         SELECT (SELECT d.endpoint_id FROM publisher.webhook_deliveries d
                 WHERE d.status = 'pending' AND d.endpoint_id > p.endpoint_id ORDER BY d.endpoint_id LIMIT 1)
         FROM pending_endpoints p WHERE p.endpoint_id IS NOT NULL),
       endpoint_busy AS (
         SELECT d.endpoint_id, count(*)::int AS n FROM publisher.webhook_deliveries d
         WHERE d.leased_until IS NOT NULL AND d.leased_until > $1 AND d.status = 'pending'
         GROUP BY d.endpoint_id),
       account_busy AS (
         SELECT w.account_id, sum(b.n)::int AS n
         FROM endpoint_busy b JOIN publisher.webhook_endpoints w ON w.id = b.endpoint_id
         GROUP BY w.account_id),
       candidates AS (
         SELECT d.id, d.next_attempt_at, w.account_id, COALESCE(a.n, 0) AS account_busy,
           row_number() OVER (PARTITION BY w.account_id ORDER BY d.next_attempt_at, d.id) AS account_rank
         FROM pending_endpoints p
           JOIN publisher.webhook_endpoints w ON w.id = p.endpoint_id
           LEFT JOIN endpoint_busy b ON b.endpoint_id = w.id
           LEFT JOIN account_busy a ON a.account_id = w.account_id
           CROSS JOIN LATERAL (
             SELECT d.id, d.next_attempt_at FROM publisher.webhook_deliveries d
             WHERE d.endpoint_id = w.id AND d.status = 'pending' AND d.next_attempt_at <= $1
               AND (d.leased_until IS NULL OR d.leased_until <= $1)
             ORDER BY d.next_attempt_at, d.id
             LIMIT GREATEST(0, $5::int - COALESCE(b.n, 0))) d
         WHERE w.enabled AND (w.paused_until IS NULL OR w.paused_until <= $1)
           AND COALESCE(a.n, 0) < $6::int),
       picked AS (
         SELECT c.id FROM candidates c
           LEFT JOIN unnest($7::text[], $8::int[]) AS held(account_id, n) ON held.account_id = c.account_id
         WHERE c.account_rank <= LEAST($6::int - c.account_busy, $9::int - COALESCE(held.n, 0))
         ORDER BY c.account_rank, c.next_attempt_at, c.id LIMIT $2),
       due AS (
         SELECT d.id FROM publisher.webhook_deliveries d
         WHERE d.id IN (SELECT id FROM picked) AND d.status = 'pending'
           AND (d.leased_until IS NULL OR d.leased_until <= $1)
         FOR UPDATE OF d SKIP LOCKED),
       claimed AS (
         UPDATE publisher.webhook_deliveries d
         SET attempts = d.attempts + 1, leased_until = $3, lease_token = gen_random_uuid()::text, updated_at = $1
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.lease_token, d.final_attempt),
       started AS (
         INSERT INTO publisher.webhook_attempts (delivery_id, number, worker_id, started_at)
         SELECT id, attempts, $4, $1 FROM claimed)
       SELECT c.id, w.account_id AS "accountId", c.attempts AS attempt, c.lease_token AS "leaseToken", c.final_attempt AS "finalAttempt",
         w.id AS "endpointId", w.url, w.secret, w.previous_secret AS "previousSecret",
         w.previous_secret_until AS "previousSecretUntil",
         (w.consecutive_failures > 0 OR w.consecutive_timeouts > 0 OR w.paused_until IS NOT NULL) AS failing,
         e.id AS "eventId", e.type, e.post_id AS "postId", e.target_id AS "targetId", e.data,
         e.occurred_at AS "occurredAt"
       FROM claimed c
         JOIN publisher.webhook_endpoints w ON w.id = c.endpoint_id
         JOIN publisher.events e ON e.id = c.event_id`,
      [
        input.now,
        input.limit,
        input.leaseUntil,
        input.workerId,
        perEndpoint,
        perAccount,
        [...held.keys()],
        [...held.values()],
        input.processShare?.perAccount ?? perAccount,
      ],
    );
  });
  return rows.map((row) => ({
    id: row.id,
    accountId: row.accountId,
    attempt: row.attempt,
    leaseToken: row.leaseToken,
    finalAttempt: row.finalAttempt,
    endpointFailing: row.failing,
    endpoint: {
      endpointId: row.endpointId,
      url: row.url,
      secret: row.secret,
      previousSecret: row.previousSecret,
      previousSecretUntil: row.previousSecretUntil,
    },
    event: {
      id: row.eventId,
      type: row.type,
      postId: row.postId,
      targetId: row.targetId,
      data: row.data,
      occurredAt: row.occurredAt,
    },
  }));
}

/** How one attempt went, as recorded. */
export type AttemptRecord = {
  delivered: boolean;
  /** The receiver's status; null when no answer came. */
  responseStatus: number | null;
  latencyMs: number;
  /** The start of the answer, redacted (excerpt.ts); null when none came. */
  excerpt: string | null;
  /** Why the attempt failed; null when it delivered. */
  error: string | null;
  /** Whether no answer came within the time limit (a streak of these pauses the endpoint). */
  timedOut: boolean;
  /** When the next attempt is due; null when none is (delivered, or given up). */
  retryAt: Date | null;
};

/** Where a settled delivery stands, whether its failure turned its endpoint off, or paused it until when. */
export type Settlement = {
  status: "delivered" | "pending" | "failed";
  endpointDisabled: boolean;
  /** Set when this attempt's timeout paused the endpoint (its due deliveries wait until then). */
  endpointPausedUntil?: Date;
};

/**
 * Records an attempt's outcome in one transaction: the endpoint's failure streak first (a
 * success ends it, and any pause; a timeout extends the streak of timeouts, which past a few
 * pauses the endpoint (`endpointPauseMs`), any other outcome ends that streak; a failure that
 * makes the failure streak persistent turns the endpoint off and records
 * `webhook.endpoint_disabled` for its owner), then in one statement the delivery (delivered, due
 * again at `retryAt`, or failed), conditional on the claim's token, and the attempt itself. The
 * endpoint's row is locked before the delivery's, the order a deletion cascades in, so the two
 * never deadlock; a success at an endpoint that was not failing leaves it alone.
 */
export async function settleAttempt(
  db: Database,
  input: { claim: ClaimedDelivery; record: AttemptRecord; now: Date; policy: WebhookRetryPolicy },
): Promise<Settlement> {
  const { claim, record, now } = input;
  const status = record.delivered ? "delivered" : record.retryAt ? "pending" : "failed";
  return db.transaction(async (tx) => {
    // Lost in a crash, a settlement is an attempt made again (with the same webhook-id).
    await tx.query("SET LOCAL synchronous_commit = off");
    const health = await recordEndpointHealth(tx, input);
    await tx.query(
      `WITH delivery AS (
         UPDATE publisher.webhook_deliveries SET status = $3, next_attempt_at = COALESCE($4, next_attempt_at),
           final_attempt = CASE WHEN $3 = 'pending' THEN final_attempt END,
           leased_until = NULL, lease_token = NULL, last_response_status = $5, last_error = $6,
           delivered_at = CASE WHEN $3 = 'delivered' THEN $7 ELSE delivered_at END, updated_at = $7
         WHERE id = $1 AND lease_token = $2)
       UPDATE publisher.webhook_attempts SET finished_at = $7, response_status = $5, latency_ms = $8,
         response_excerpt = $9, error = $6, retry_at = $4
       WHERE delivery_id = $1 AND number = $10`,
      [
        claim.id,
        claim.leaseToken,
        status,
        record.retryAt,
        record.responseStatus,
        record.error,
        now,
        record.latencyMs,
        record.excerpt,
        claim.attempt,
      ],
    );
    return { status, ...health };
  });
}

/**
 * Ends or extends the endpoint's failure streak (and its streak of timeouts): whether this failure
 * turned it off, and until when its timeout paused it.
 */
async function recordEndpointHealth(
  tx: Queryable,
  input: { claim: ClaimedDelivery; record: AttemptRecord; now: Date; policy: WebhookRetryPolicy },
): Promise<Omit<Settlement, "status">> {
  const endpointId = input.claim.endpoint.endpointId;
  if (input.record.delivered) {
    // Most deliveries: the endpoint was not failing, and its row is left alone (not even locked).
    if (!input.claim.endpointFailing) return { endpointDisabled: false };
    await tx.query(
      `UPDATE publisher.webhook_endpoints
       SET consecutive_failures = 0, failing_since = NULL, consecutive_timeouts = 0, paused_until = NULL
       WHERE id = $1 AND (consecutive_failures > 0 OR consecutive_timeouts > 0 OR paused_until IS NOT NULL)`,
      [endpointId],
    );
    return { endpointDisabled: false };
  }
  const [streak] = await tx.query<{
    accountId: string;
    description: string | null;
    enabled: boolean;
    failures: number;
    failingSince: Date;
    timeouts: number;
  }>(
    `UPDATE publisher.webhook_endpoints
     SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, $2),
       consecutive_timeouts = CASE WHEN $3 THEN consecutive_timeouts + 1 ELSE 0 END
     WHERE id = $1
     RETURNING account_id AS "accountId", description, enabled, consecutive_failures AS failures,
       failing_since AS "failingSince", consecutive_timeouts AS timeouts`,
    [endpointId, input.now, input.record.timedOut],
  );
  if (!streak) return { endpointDisabled: false };
  const endpointPausedUntil = await pauseAfterTimeouts(tx, endpointId, streak.timeouts, input);
  const paused = endpointPausedUntil ? { endpointPausedUntil } : {};
  if (!streak.enabled || !shouldDisableEndpoint(input.policy, streak, input.now)) {
    return { endpointDisabled: false, ...paused };
  }
  const turnedOff = await tx.query(
    `UPDATE publisher.webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = $2
     WHERE id = $1 AND enabled RETURNING id`,
    [endpointId, input.now],
  );
  if (turnedOff.length === 0) return { endpointDisabled: false, ...paused };
  await appendEvent(
    tx,
    {
      accountId: streak.accountId,
      type: "webhook.endpoint_disabled",
      data: {
        endpointId,
        description: streak.description,
        reason: "failing",
        failingSince: streak.failingSince.toISOString(),
        consecutiveFailures: streak.failures,
        lastError: input.record.error,
      },
    },
    input.now,
  );
  return { endpointDisabled: true, ...paused };
}

/** Pauses the endpoint when its streak of timeouts calls for it (retry-schedule.ts); until when. */
async function pauseAfterTimeouts(
  tx: Queryable,
  endpointId: string,
  timeouts: number,
  input: { now: Date; policy: WebhookRetryPolicy },
): Promise<Date | undefined> {
  const pauseMs = endpointPauseMs(input.policy, timeouts);
  if (pauseMs === null) return undefined;
  const until = new Date(input.now.getTime() + pauseMs);
  await tx.query("UPDATE publisher.webhook_endpoints SET paused_until = $2 WHERE id = $1", [
    endpointId,
    until,
  ]);
  return until;
}
