import { randomUUID } from "node:crypto";
import { type Clock, systemClock } from "@app/core";
import type { Queryable } from "@app/db";
import type { StoredResponse } from "./stored-response.ts";

/** How long a stored response answers retries with its key (Stripe's 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600_000;

/** How many times {@link IdempotencyStore.begin} looks again at a key that changed under it. */
const BEGIN_TRIES = 3;

/** How an {@link IdempotencyStore} is made. */
export type IdempotencyStoreOptions = {
  /** Whose keys these are: the service (`gateway`, `fortune`). Two stores with one namespace share keys. */
  namespace: string;
  /**
   * How long a request holds a key it began: past that (its instance died mid-request) the next
   * request with the key takes it over and runs afresh. Make it longer than the operation can take.
   */
  leaseMs: number;
  /** How long a stored response answers retries; 24 hours unless set. */
  ttlMs?: number;
  clock?: Clock;
};

/** A key as held by the request that began it: `token` proves it still holds it. */
export type IdempotencyLease = { scope: string; key: string; token: string };

/** What {@link IdempotencyStore.begin} is asked: whose key, which key, and the request it came with. */
export type IdempotentRequest = {
  /** Whose key it is: the caller (an account id, a route and payer). Keys of two scopes never meet. */
  scope: string;
  key: string;
  /** The request's fingerprint (`requestFingerprint`): the same key with another is refused. */
  fingerprint: string;
  /**
   * An opaque note kept with the key while this request holds it and with its response, for the
   * operation's own use: what the request is bound to (fortune: the payment authorisation paying
   * for it). Read back on a replay and while in progress.
   */
  attachment?: string;
};

/** A key whose request has not finished, as recovery sees it. */
export type PendingKey = {
  /** The holder's lease: recovery completes or releases the key on the holder's behalf with it. */
  lease: IdempotencyLease;
  attachment: string | undefined;
  startedAt: Date;
  /** Whether it is pinned ({@link IdempotencyStore.pin}): held until completed or released, whatever the time. */
  pinned: boolean;
};

/** What a request with a key is to do. */
export type IdempotencyBegin =
  /** Run: the key is this request's, under `lease`, until it completes or releases it. */
  | { kind: "started"; lease: IdempotencyLease }
  /** Answer the stored response again (same key, same request, within its time to live). */
  | { kind: "replay"; response: StoredResponse; attachment: string | undefined }
  /**
   * The key's first request has not finished. `pending` is its holder (undefined when the key
   * kept changing under this look: answer "in progress" all the same).
   */
  | { kind: "in_progress"; pending: PendingKey | undefined }
  /** The key came with another request: refuse (422). */
  | { kind: "mismatch" };

type Row = {
  request_fingerprint: string;
  attachment: string | null;
  state: "pending" | "done";
  lease_token: string | null;
  lease_until: Date | null;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
  created_at: Date;
};

/**
 * Inserts the key as pending for this request, or takes over the key's row when it is free again:
 * pending past its lease (a pinned key, with no lease, never is), or stored past its time to live.
 * One statement: `ON CONFLICT DO UPDATE` locks the row, so of any number of concurrent requests at
 * any instances exactly one gets the key.
 */
const TAKE = `INSERT INTO edge.idempotency_keys AS k
    (namespace, scope, idempotency_key, request_fingerprint, attachment, state, lease_token, lease_until, created_at)
  VALUES ($1::text, $2::text, $3::text, $4::text, $5::text, 'pending', $6::text, $7::timestamptz, $8::timestamptz)
  ON CONFLICT (namespace, scope, idempotency_key) DO UPDATE SET
    request_fingerprint = EXCLUDED.request_fingerprint, attachment = EXCLUDED.attachment, state = 'pending',
    lease_token = EXCLUDED.lease_token, lease_until = EXCLUDED.lease_until, created_at = EXCLUDED.created_at,
    status = NULL, headers = NULL, body = NULL, completed_at = NULL
  WHERE (k.state = 'pending' AND k.lease_until <= $8::timestamptz)
     OR (k.state = 'done' AND k.completed_at <= $9::timestamptz)
  RETURNING 1 AS taken`;

const READ = `SELECT request_fingerprint, attachment, state, lease_token, lease_until, status, headers, body, created_at
  FROM edge.idempotency_keys WHERE namespace = $1::text AND scope = $2::text AND idempotency_key = $3::text`;

const HELD =
  "namespace = $1::text AND scope = $2::text AND idempotency_key = $3::text AND state = 'pending' AND lease_token = $4::text";

const NAMESPACE = /^[a-z][a-z0-9_.:-]{0,62}$/;

/**
 * `Idempotency-Key`s of one service, on the database so every instance shares them (the IETF draft
 * "The Idempotency-Key HTTP Header Field", with Stripe's 24 hours): the first request with a key
 * runs; a retry with the same key and request gets the stored response, byte for byte; a retry
 * while the first still runs is told so; the same key with another request is refused.
 *
 * A key being run is `pending` under a lease: a request whose lease ran out (its instance died)
 * has its key taken over by the next request with it, and can then neither complete nor release
 * it. A request whose effect may land after it is gone (a payment sent to the chain) pins its key
 * first: then only completing or releasing frees it, which the service's recovery does from
 * {@link pendingSince}. Every step is one conditional statement; time comes from the clock.
 */
export class IdempotencyStore {
  private readonly namespace: string;
  private readonly leaseMs: number;
  private readonly ttlMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly db: Queryable,
    options: IdempotencyStoreOptions,
  ) {
    if (!NAMESPACE.test(options.namespace)) {
      throw new RangeError(
        `An idempotency namespace must be lower-case, such as "gateway": ${options.namespace}`,
      );
    }
    for (const [name, ms] of [
      ["lease", options.leaseMs],
      ["time to live", options.ttlMs ?? IDEMPOTENCY_TTL_MS],
    ] as const) {
      if (!Number.isFinite(ms) || ms <= 0)
        throw new RangeError(`An idempotency ${name} must be positive: ${ms}`);
    }
    this.namespace = options.namespace;
    this.leaseMs = options.leaseMs;
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.clock = options.clock ?? systemClock;
  }

  /** Begins a request with a key: run it (the key is now its own), replay, wait, or refuse. */
  async begin(request: IdempotentRequest): Promise<IdempotencyBegin> {
    const { scope, key, fingerprint } = request;
    for (let attempt = 0; attempt < BEGIN_TRIES; attempt += 1) {
      const now = this.clock.now();
      const token = randomUUID();
      const taken = await this.db.query(
        TAKE,
        [
          this.namespace,
          scope,
          key,
          fingerprint,
          request.attachment ?? null,
          token,
          new Date(now.getTime() + this.leaseMs),
          now,
          new Date(now.getTime() - this.ttlMs),
        ],
        { prepareAs: "edge_idempotency_take" },
      );
      if (taken.length > 0) return { kind: "started", lease: { scope, key, token } };
      const [row] = await this.db.query<Row>(READ, [this.namespace, scope, key], {
        prepareAs: "edge_idempotency_read",
      });
      // Released between the two statements: the key is free, try again.
      if (!row) continue;
      if (row.request_fingerprint !== fingerprint) return { kind: "mismatch" };
      if (row.state === "pending") return { kind: "in_progress", pending: pendingKeyOf(scope, key, row) };
      return {
        kind: "replay",
        attachment: row.attachment ?? undefined,
        response: { status: row.status ?? 200, headers: row.headers ?? {}, body: row.body ?? "" },
      };
    }
    return { kind: "in_progress", pending: undefined };
  }

  /**
   * Keeps the response of a request that ran, for its retries, if the key is still this lease's
   * (not taken over, not released). Returns whether it was kept.
   */
  async complete(lease: IdempotencyLease, response: StoredResponse): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE edge.idempotency_keys SET state = 'done', status = $5::int, headers = $6::jsonb, body = $7::text,
         completed_at = $8::timestamptz, lease_token = NULL, lease_until = NULL
       WHERE ${HELD} RETURNING 1`,
      [
        ...this.held(lease),
        response.status,
        JSON.stringify(response.headers),
        response.body,
        this.clock.now(),
      ],
    );
    return rows.length > 0;
  }

  /** Frees a key whose request did not run to a response worth keeping, so a retry runs afresh. */
  async release(lease: IdempotencyLease): Promise<boolean> {
    const rows = await this.db.query(
      `DELETE FROM edge.idempotency_keys WHERE ${HELD} RETURNING 1`,
      this.held(lease),
    );
    return rows.length > 0;
  }

  /**
   * Pins a key this lease holds: its lease no longer runs out, so no other request takes it over,
   * and it stays in progress until completed or released. For a request about to do what may land
   * after it is gone (send a payment to the chain). Returns false when the key is no longer this
   * lease's: the request must not go on.
   */
  async pin(lease: IdempotencyLease): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE edge.idempotency_keys SET lease_until = NULL WHERE ${HELD} RETURNING 1`,
      this.held(lease),
    );
    return rows.length > 0;
  }

  /** Keys pending since before `before`, oldest first (at most `limit`), for recovery. */
  async pendingSince(before: Date, limit = 100): Promise<PendingKey[]> {
    const rows = await this.db.query<Row & { scope: string; idempotency_key: string }>(
      `SELECT scope, idempotency_key, request_fingerprint, attachment, state, lease_token, lease_until, status,
         headers, body, created_at
       FROM edge.idempotency_keys
       WHERE namespace = $1::text AND state = 'pending' AND created_at < $2::timestamptz
       ORDER BY created_at LIMIT $3::int`,
      [this.namespace, before, limit],
    );
    return rows.map((row) => pendingKeyOf(row.scope, row.idempotency_key, row));
  }

  /**
   * Deletes what can never answer again: stored responses past their time to live, and keys whose
   * lease ran out that long ago (pinned keys stay). How many went.
   */
  async purgeExpired(now: Date = this.clock.now()): Promise<number> {
    const expired = new Date(now.getTime() - this.ttlMs);
    const rows = await this.db.query(
      `DELETE FROM edge.idempotency_keys
       WHERE namespace = $1::text
         AND ((state = 'done' AND completed_at <= $2::timestamptz)
           OR (state = 'pending' AND lease_until <= $2::timestamptz))
       RETURNING 1`,
      [this.namespace, expired],
    );
    return rows.length;
  }

  private held(lease: IdempotencyLease): string[] {
    return [this.namespace, lease.scope, lease.key, lease.token];
  }
}

function pendingKeyOf(scope: string, key: string, row: Row): PendingKey {
  return {
    lease: { scope, key, token: row.lease_token ?? "" },
    attachment: row.attachment ?? undefined,
    startedAt: row.created_at,
    pinned: row.lease_until === null,
  };
}
