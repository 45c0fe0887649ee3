import { newId, type TextSealer } from "@app/core";
import type { Database, Queryable } from "@app/db";
import type { PublisherEventType } from "../contracts/events.ts";
import { newWebhookSecret, openSecret, PREVIOUS_SECRET_TTL_MS, sealSecret } from "./secrets.ts";

/** An account's webhook endpoint as stored, its secrets left sealed. */
export type WebhookEndpoint = {
  id: string;
  accountId: string;
  url: string;
  description: string | null;
  /** The types sent; null: every type. */
  eventTypes: PublisherEventType[] | null;
  enabled: boolean;
  disabledReason: "owner" | "failing" | null;
  /** Until when the secret before the last rotation still signs; null when there is none. */
  previousSecretUntil: Date | null;
  failingSince: Date | null;
  consecutiveFailures: number;
  createdAt: Date;
  updatedAt: Date;
};

/** The most endpoints an account may have. */
export const MAX_ENDPOINTS_PER_ACCOUNT = 20;

const COLUMNS = `id, account_id AS "accountId", url, description, event_types AS "eventTypes", enabled,
  disabled_reason AS "disabledReason", previous_secret_until AS "previousSecretUntil",
  failing_since AS "failingSince", consecutive_failures AS "consecutiveFailures",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** What an endpoint is made with (or changed to). */
export type EndpointFields = {
  url: string;
  description?: string | null;
  eventTypes?: PublisherEventType[] | null;
  enabled?: boolean;
};

/**
 * Creates an endpoint with a new signing secret, sealed; the secret is returned in clear this
 * once. "limit" when the account already has {@link MAX_ENDPOINTS_PER_ACCOUNT} (counted under the
 * account's row lock, so concurrent creations cannot pass it).
 */
export async function createEndpoint(
  db: Database,
  sealer: TextSealer,
  input: EndpointFields & { accountId: string },
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; secret: string } | "limit"> {
  return db.transaction(async (tx) => {
    await tx.query("SELECT id FROM publisher.accounts WHERE id = $1 FOR NO KEY UPDATE", [input.accountId]);
    const [count] = await tx.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM publisher.webhook_endpoints WHERE account_id = $1",
      [input.accountId],
    );
    if ((count?.n ?? 0) >= MAX_ENDPOINTS_PER_ACCOUNT) return "limit";
    const id = newId("wh");
    const secret = newWebhookSecret();
    const enabled = input.enabled ?? true;
    const [endpoint] = await tx.query<WebhookEndpoint>(
      `INSERT INTO publisher.webhook_endpoints
         (id, account_id, url, description, event_types, enabled, disabled_reason, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING ${COLUMNS}`,
      [
        id,
        input.accountId,
        input.url,
        input.description ?? null,
        input.eventTypes ?? null,
        enabled,
        enabled ? null : "owner",
        sealSecret(sealer, id, secret),
        now,
      ],
    );
    return { endpoint: endpoint as WebhookEndpoint, secret };
  });
}

/** The account's endpoints, oldest first. */
export function listEndpoints(db: Queryable, accountId: string): Promise<WebhookEndpoint[]> {
  return db.query<WebhookEndpoint>(
    `SELECT ${COLUMNS} FROM publisher.webhook_endpoints WHERE account_id = $1 ORDER BY created_at, id`,
    [accountId],
  );
}

/** One of the account's endpoints; undefined when it has no such endpoint. */
export async function findEndpoint(
  db: Queryable,
  accountId: string,
  id: string,
): Promise<WebhookEndpoint | undefined> {
  const [endpoint] = await db.query<WebhookEndpoint>(
    `SELECT ${COLUMNS} FROM publisher.webhook_endpoints WHERE account_id = $1 AND id = $2`,
    [accountId, id],
  );
  return endpoint;
}

/**
 * Changes an endpoint's fields (those given). Turning it on, or giving it a new URL, clears its
 * failure streak; turning it off records that its owner did. Undefined when the account has no such endpoint.
 */
export async function updateEndpoint(
  db: Queryable,
  input: Partial<EndpointFields> & { accountId: string; id: string },
  now: Date,
): Promise<WebhookEndpoint | undefined> {
  const [endpoint] = await db.query<WebhookEndpoint>(
    `UPDATE publisher.webhook_endpoints SET
       url = CASE WHEN $3::boolean THEN $4::text ELSE url END,
       description = CASE WHEN $5::boolean THEN $6::text ELSE description END,
       event_types = CASE WHEN $7::boolean THEN $8::text[] ELSE event_types END,
       enabled = COALESCE($9::boolean, enabled),
       disabled_reason = CASE WHEN $9::boolean IS NULL OR $9::boolean = enabled THEN disabled_reason
         WHEN $9::boolean THEN NULL ELSE 'owner' END,
       failing_since = CASE WHEN ($9::boolean AND NOT enabled) OR $3::boolean THEN NULL ELSE failing_since END,
       consecutive_failures = CASE WHEN ($9::boolean AND NOT enabled) OR $3::boolean THEN 0
         ELSE consecutive_failures END,
       updated_at = $10
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [
      input.accountId,
      input.id,
      input.url !== undefined,
      input.url ?? null,
      input.description !== undefined,
      input.description ?? null,
      input.eventTypes !== undefined,
      input.eventTypes ?? null,
      input.enabled ?? null,
      now,
    ],
  );
  return endpoint;
}

/** Deletes an endpoint with its deliveries and their attempts; false when the account has no such endpoint. */
export async function deleteEndpoint(db: Queryable, accountId: string, id: string): Promise<boolean> {
  const rows = await db.query(
    "DELETE FROM publisher.webhook_endpoints WHERE account_id = $1 AND id = $2 RETURNING id",
    [accountId, id],
  );
  return rows.length > 0;
}

/**
 * Gives an endpoint a new signing secret (returned in clear this once); the one it replaces keeps
 * signing for {@link PREVIOUS_SECRET_TTL_MS} (a second rotation within that time ends the first
 * one's at once: only the latest previous secret is kept). Undefined when the account has no such
 * endpoint.
 */
export async function rotateSecret(
  db: Queryable,
  sealer: TextSealer,
  input: { accountId: string; id: string },
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; secret: string } | undefined> {
  const secret = newWebhookSecret();
  const [endpoint] = await db.query<WebhookEndpoint>(
    `UPDATE publisher.webhook_endpoints SET previous_secret = secret, secret = $3,
       previous_secret_until = $4, updated_at = $5
     WHERE account_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
    [
      input.accountId,
      input.id,
      sealSecret(sealer, input.id, secret),
      new Date(now.getTime() + PREVIOUS_SECRET_TTL_MS),
      now,
    ],
  );
  return endpoint && { endpoint, secret };
}

/** An endpoint's sealed secrets, as a claim reads them. */
export type SealedSecrets = {
  endpointId: string;
  secret: string;
  previousSecret: string | null;
  previousSecretUntil: Date | null;
};

/** The secrets that sign an attempt at `now`: the current one, and the previous one while it lasts. */
export function signingSecrets(sealer: TextSealer, sealed: SealedSecrets, now: Date): string[] {
  const current = openSecret(sealer, sealed.endpointId, sealed.secret);
  const previousValid =
    sealed.previousSecret !== null &&
    sealed.previousSecretUntil !== null &&
    sealed.previousSecretUntil.getTime() > now.getTime();
  return previousValid
    ? [current, openSecret(sealer, sealed.endpointId, sealed.previousSecret as string)]
    : [current];
}
