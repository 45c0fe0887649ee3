import { createHash } from "node:crypto";
import { ApiError, requestHeader } from "@app/core";
import type { Context } from "hono";
import type { IdempotencyStore, StoredResponse } from "../store/idempotency.ts";
import type { Offer } from "./offer.ts";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** A request running under an `Idempotency-Key`: what to do with the key when it ends. */
export type KeyedRun = {
  key: string;
  complete(response: StoredResponse): Promise<void>;
  /** Forgets the key, so a retry runs again (nothing was charged). */
  release(): Promise<void>;
};

/** What a request's `Idempotency-Key` says about it. */
export type IdempotencyCheck =
  | { kind: "none" }
  | ({ kind: "run" } & KeyedRun)
  /** The key's request completed: its stored response, and the authorisation that paid for it. */
  | { kind: "replay"; stored: StoredResponse; claimKey: string }
  /** The key's request has not completed (running elsewhere, or its settlement awaits the chain). */
  | { kind: "in_progress"; claimKey: string; run: KeyedRun };

/** The `Idempotency-Key` step of every paid flow: scoped by route and payer, bound to the request. */
export class IdempotencyGuard {
  constructor(private readonly store: IdempotencyStore) {}

  /** Starts a keyed request; throws 400 for a malformed key and 409 for a key reused on another request. */
  async begin(c: Context, offer: Offer, payer: string, claimKey: string): Promise<IdempotencyCheck> {
    const key = requestHeader(c, "idempotency-key");
    if (key === undefined) return { kind: "none" };
    if (!IDEMPOTENCY_KEY.test(key)) {
      throw new ApiError("BAD_REQUEST", "Idempotency-Key must be 1 to 255 printable ASCII characters.");
    }
    const hash = createHash("sha256")
      .update(JSON.stringify(offer.request ?? null))
      .digest("hex");
    const begun = await this.store.begin(offer.route, key, payer, hash, claimKey);
    if (begun.kind === "mismatch") {
      throw new ApiError("IDEMPOTENCY_KEY_REUSED", "This Idempotency-Key was used with a different request.");
    }
    if (begun.kind === "replay") return { kind: "replay", stored: begun.response, claimKey: begun.claimKey };
    const run = this.keyedRun(offer.route, key, payer);
    if (begun.kind === "in_progress") return { kind: "in_progress", claimKey: begun.claimKey, run };
    return { kind: "run", ...run };
  }

  private keyedRun(route: string, key: string, payer: string): KeyedRun {
    return {
      key,
      complete: (response) => this.store.complete(route, key, payer, response),
      release: () => this.store.release(route, key, payer),
    };
  }
}

/** 409: the key's first request is still running; retry in a moment. */
export const requestInProgress = () =>
  new ApiError(
    "REQUEST_IN_PROGRESS",
    "A request with this Idempotency-Key is still running.",
    {},
    { "Retry-After": "1" },
  );

/** A stored response, served again. */
export function storedResponse(c: Context, stored: StoredResponse, replayed = true): Response {
  const headers = replayed ? { ...stored.headers, "Idempotent-Replayed": "true" } : stored.headers;
  return c.json(stored.body as object, stored.status as 200, headers);
}
