import type { Database, Queryable } from "@app/db";
import type { PublisherEventType } from "../contracts/events.ts";
import { appendEvent } from "../store/events.ts";
import type { SealedSecrets } from "./endpoint-store.ts";
import { shouldDisableEndpoint, type WebhookRetryPolicy } from "./retry-schedule.ts";

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
  failures: number;
} & SealedSecrets & { url: string; eventId: string } & Omit<DeliveredEvent, "id">;

/**
 * Claims up to `limit` due deliveries of enabled endpoints for `workerId`: rows picked under
 * `FOR UPDATE SKIP LOCKED` (two workers never pick the same), each given a lease until
 * `leaseUntil` and a fresh token, its attempt count raised and the attempt recorded as started,
 * all in one statement. A delivery whose worker died mid-attempt is due again once its lease
 * ends (its attempt stays recorded, unfinished).
 */
export async function claimDueDeliveries(
  db: Database,
  input: { workerId: string; now: Date; leaseUntil: Date; limit: number },
): Promise<ClaimedDelivery[]> {
  if (input.limit <= 0) return [];
  const rows = await db.transaction(async (tx) => {
    // Lost in a crash, a claim is a delivery due again: no disk flush of its own.
    await tx.query("SET LOCAL synchronous_commit = off");
    return tx.query<ClaimRow>(
      `WITH due AS (
         SELECT d.id FROM publisher.webhook_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= $1
           AND (d.leased_until IS NULL OR d.leased_until <= $1)
           AND EXISTS (SELECT 1 FROM publisher.webhook_endpoints w WHERE w.id = d.endpoint_id AND w.enabled)
         ORDER BY d.next_attempt_at LIMIT $2
         FOR UPDATE OF d SKIP LOCKED),
       claimed AS (
         UPDATE publisher.webhook_deliveries d
         SET attempts = d.attempts + 1, leased_until = $3, lease_token = gen_random_uuid()::text, updated_at = $1
         FROM due WHERE d.id = due.id
         RETURNING d.id, d.endpoint_id, d.event_id, d.attempts, d.lease_token, d.final_attempt),
       started AS (
         INSERT INTO publisher.webhook_attempts (delivery_id, number, worker_id, started_at)
         SELECT id, attempts, $4, $1 FROM claimed)
       SELECT c.id, c.attempts AS attempt, c.lease_token AS "leaseToken", c.final_attempt AS "finalAttempt",
         w.id AS "endpointId", w.url, w.secret, w.previous_secret AS "previousSecret",
         w.previous_secret_until AS "previousSecretUntil", w.consecutive_failures AS failures,
         e.id AS "eventId", e.type, e.post_id AS "postId", e.target_id AS "targetId", e.data,
         e.occurred_at AS "occurredAt"
       FROM claimed c
         JOIN publisher.webhook_endpoints w ON w.id = c.endpoint_id
         JOIN publisher.events e ON e.id = c.event_id`,
      [input.now, input.limit, input.leaseUntil, input.workerId],
    );
  });
  return rows.map((row) => ({
    id: row.id,
    attempt: row.attempt,
    leaseToken: row.leaseToken,
    finalAttempt: row.finalAttempt,
    endpointFailing: row.failures > 0,
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
  /** When the next attempt is due; null when none is (delivered, or given up). */
  retryAt: Date | null;
};

/** Where a settled delivery stands, and whether its failure turned its endpoint off. */
export type Settlement = { status: "delivered" | "pending" | "failed"; endpointDisabled: boolean };

/**
 * Records an attempt's outcome in one transaction: the endpoint's failure streak first (a
 * success ends it; a failure that makes it persistent turns the endpoint off and records
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
    const endpointDisabled = await recordEndpointHealth(tx, input);
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
    return { status, endpointDisabled };
  });
}

/** Ends or extends the endpoint's failure streak; true when this failure turned it off. */
async function recordEndpointHealth(
  tx: Queryable,
  input: { claim: ClaimedDelivery; record: AttemptRecord; now: Date; policy: WebhookRetryPolicy },
): Promise<boolean> {
  const endpointId = input.claim.endpoint.endpointId;
  if (input.record.delivered) {
    // Most deliveries: the endpoint was not failing, and its row is left alone (not even locked).
    if (!input.claim.endpointFailing) return false;
    await tx.query(
      `UPDATE publisher.webhook_endpoints SET consecutive_failures = 0, failing_since = NULL
       WHERE id = $1 AND consecutive_failures > 0`,
      [endpointId],
    );
    return false;
  }
  const [streak] = await tx.query<{
    accountId: string;
    description: string | null;
    enabled: boolean;
    failures: number;
    failingSince: Date;
  }>(
    `UPDATE publisher.webhook_endpoints
     SET consecutive_failures = consecutive_failures + 1, failing_since = COALESCE(failing_since, $2)
     WHERE id = $1
     RETURNING account_id AS "accountId", description, enabled, consecutive_failures AS failures,
       failing_since AS "failingSince"`,
    [endpointId, input.now],
  );
  if (!streak?.enabled || !shouldDisableEndpoint(input.policy, streak, input.now)) return false;
  const turnedOff = await tx.query(
    `UPDATE publisher.webhook_endpoints SET enabled = false, disabled_reason = 'failing', updated_at = $2
     WHERE id = $1 AND enabled RETURNING id`,
    [endpointId, input.now],
  );
  if (turnedOff.length === 0) return false;
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
  return true;
}
