import { type Clock, errorResponseSpec, jsonTextOf, type Logger, z } from "@app/core";
import type { Queryable } from "@app/db";
import {
  IDEMPOTENCY_KEY_HEADER,
  IdempotencyStore,
  idempotencyKeyOf,
  idempotencyKeyReused,
  keepAnswer,
  releaseKey,
  requestFingerprint,
  requestInProgress,
  type StoredResponse,
  sendStoredResponse,
  storedJson,
} from "@app/edge";
import type { Context } from "hono";
import { CHECK_LIMITS } from "./post-checks.ts";

/** The namespace of the publisher's `Idempotency-Key`s in the shared store (`edge.idempotency_keys`). */
export const IDEMPOTENCY_NAMESPACE = "publisher";

/** What a pending key's lease adds to the longest a create can take (its own statements, a slow database). */
export const PENDING_LEASE_MARGIN_MS = 60_000;

/**
 * How long a create holds its key: the post's checks (their deadline), then publish-now's wait,
 * plus {@link PENDING_LEASE_MARGIN_MS}. A live instance answers well within it, so a key is taken
 * over only from an instance that died mid-request.
 */
export function pendingLeaseMs(publishTimeoutMs: number): number {
  return CHECK_LIMITS.deadlineMs + publishTimeoutMs + PENDING_LEASE_MARGIN_MS;
}

/**
 * The store of the publisher's create keys (publish, schedule, queue, v2 upload), scoped by
 * account: a key being run is leased for {@link pendingLeaseMs}, its answer kept 24 hours.
 */
export function publisherIdempotencyStore(
  db: Queryable,
  clock: Clock,
  publishTimeoutMs: number,
): IdempotencyStore {
  return new IdempotencyStore(db, {
    namespace: IDEMPOTENCY_NAMESPACE,
    leaseMs: pendingLeaseMs(publishTimeoutMs),
    clock,
  });
}

/** How often expired keys are purged by default: hourly (an answer is kept 24 hours). */
export const PURGE_INTERVAL_MS = 3_600_000;

/**
 * Deletes the keys that can never answer again (answers past their 24 hours, leases long run
 * out) at start and every `everyMs`; the returned function stops it. A failure is logged and
 * tried again next time.
 */
export function startIdempotencyPurge(
  store: Pick<IdempotencyStore, "purgeExpired">,
  logger: Logger,
  everyMs = PURGE_INTERVAL_MS,
): () => void {
  const purge = () =>
    store.purgeExpired().catch((error: unknown) => {
      logger.warn({ err: error }, "expired Idempotency-Keys could not be purged");
    });
  void purge();
  const timer = setInterval(purge, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

/** The `Idempotency-Key` request header of the creates, as OpenAPI shows it (its form is checked by the route). */
export const IdempotencyKeyHeaders = z.object({
  [IDEMPOTENCY_KEY_HEADER.toLowerCase()]: z.string().optional().openapi({
    description:
      "Makes a retry safe: the same key with the same body within 24 hours answers the first answer again (`Idempotent-Replayed: true`) and makes nothing new; with another body it is 422, and while the first still runs 409 with Retry-After. 1 to 255 visible ASCII characters.",
    example: "7f3c9a60-3b1e-4d0a-9f1e-2c4b8e6d5a10",
  }),
});

/** The answers an idempotent create adds to its route's. */
export const IDEMPOTENT_CREATE_RESPONSES = {
  409: errorResponseSpec(
    "A request with this Idempotency-Key is still running (REQUEST_IN_PROGRESS); see Retry-After",
  ),
  422: errorResponseSpec("This Idempotency-Key came with another request (IDEMPOTENCY_KEY_REUSED)"),
} as const;

/**
 * What a create tells {@link answerIdempotently} as it goes: once it has stored what it makes, it
 * sets `created` to the ids a caller can follow it by (`{postId}`), so a failure after that keeps
 * the key rather than letting a retry make it again.
 */
export type CreateProgress = { created?: Record<string, string> };

/** What a create under a key is: whose, which operation, and its parsed, validated body. */
export type IdempotentCreate = { accountId: string; operation: string; body: unknown };

type IdempotencyDeps = { idempotency: IdempotencyStore; logger: Logger };

/** The answer kept (and sent) when a create failed after storing what it made. */
function failedAfterCreate(created: Record<string, string>): StoredResponse {
  return storedJson(500, {
    error: "INTERNAL",
    message:
      "Something went wrong on our side after this request's effect was stored; it will not be made again. Follow it by the ids given.",
    ...created,
  });
}

/**
 * Runs a create at most once per account and `Idempotency-Key` (none sent: it just runs), and
 * sends its answer (a 200 of `T`) as {@link StoredResponse} text, so the first answer and every
 * replay are the same bytes (status, headers, body; a replay adds `Idempotent-Replayed: true`).
 *
 * The fingerprint is the operation and its parsed, validated body (not the raw bytes: key order
 * and whitespace do not make two requests different). The same key with the same request replays
 * the stored answer and makes nothing; with another request it is 422 `IDEMPOTENCY_KEY_REUSED`;
 * while the first runs, 409 `REQUEST_IN_PROGRESS` with `Retry-After`. A failure before anything
 * was stored (a refusal, a timeout of the checks) releases the key, so a retry runs afresh; a
 * failure after it keeps a 500 naming what was made, and a retry makes nothing again.
 */
export async function answerIdempotently<T>(
  c: Context,
  deps: IdempotencyDeps,
  request: IdempotentCreate,
  create: (progress: CreateProgress) => Promise<T>,
) {
  const key = idempotencyKeyOf(c);
  const answer = async (progress: CreateProgress) => storedJson(200, await create(progress));
  if (key === undefined) return typedAnswer<T>(sendStoredResponse(c, await answer({}), false));
  const begin = await deps.idempotency.begin({
    scope: request.accountId,
    key,
    fingerprint: requestFingerprint({ operation: request.operation, body: request.body }),
  });
  if (begin.kind === "mismatch") throw idempotencyKeyReused();
  if (begin.kind === "in_progress") throw requestInProgress();
  if (begin.kind === "replay") return typedAnswer<T>(sendStoredResponse(c, begin.response, true));
  const progress: CreateProgress = {};
  let response: StoredResponse;
  try {
    response = await answer(progress);
  } catch (error) {
    if (!progress.created) {
      await releaseKey(deps.idempotency, begin.lease, deps.logger);
      throw error;
    }
    deps.logger.error(
      { err: error, accountId: request.accountId, operation: request.operation, ...progress.created },
      "a create failed after storing its effect; its Idempotency-Key keeps a 500",
    );
    response = failedAfterCreate(progress.created);
  }
  await keepAnswer(deps.idempotency, begin.lease, response, deps.logger);
  return typedAnswer<T>(sendStoredResponse(c, response, false));
}

/** A stored answer, typed as the route's 200 (the body is the text of a `T` the create made). */
const typedAnswer = <T>(response: Response) => jsonTextOf<T>(response);
