import {
  type IdempotencyLease,
  type IdempotencyStore,
  idempotencyKeyOf,
  idempotencyKeyReused,
  requestFingerprint,
  requestInProgress,
  type StoredResponse,
} from "@app/edge";
import type { Context } from "hono";
import { keyScope } from "../store/idempotency.ts";
import type { Offer } from "./offer.ts";

/** A request running under an `Idempotency-Key`: what to do with the key when it ends. */
export type KeyedRun = {
  key: string;
  /** Keeps the response for the key's retries (if the key is still this run's). */
  complete(response: StoredResponse): Promise<void>;
  /** Forgets the key, so a retry runs again (nothing was charged). */
  release(): Promise<void>;
  /**
   * Holds the key until it is completed or released, whatever the time: called before a payment
   * is sent, which may land after this request is gone. False when the key is no longer this
   * run's (its lease ran out and another request took it): nothing may be charged then.
   */
  pin(): Promise<boolean>;
};

/** What a request's `Idempotency-Key` says about it. */
export type IdempotencyCheck =
  | { kind: "none" }
  | ({ kind: "run" } & KeyedRun)
  /** The key's request completed: its stored response, and the authorisation that paid for it. */
  | { kind: "replay"; stored: StoredResponse; claimKey: string }
  /**
   * The key's request has not completed (running elsewhere, or its settlement awaits the chain):
   * the authorisation paying for it, and its run, to finish it on its holder's behalf.
   */
  | { kind: "in_progress"; claimKey: string; run: KeyedRun };

/**
 * The `Idempotency-Key` step of every paid flow, on the shared store: scoped by route and payer,
 * bound to the request's fingerprint, the claim key (the authorisation paying for the request)
 * kept with the key.
 */
export class IdempotencyGuard {
  constructor(private readonly store: IdempotencyStore) {}

  /**
   * Starts a keyed request; throws the platform's 400 for a malformed key, 422 for a key reused on
   * another request, and 409 for one whose holder could not be read.
   */
  async begin(c: Context, offer: Offer, payer: string, claimKey: string): Promise<IdempotencyCheck> {
    const key = idempotencyKeyOf(c);
    if (key === undefined) return { kind: "none" };
    const begun = await this.store.begin({
      scope: keyScope(offer.route, payer),
      key,
      fingerprint: requestFingerprint(offer.request ?? null),
      attachment: claimKey,
    });
    if (begun.kind === "mismatch") throw idempotencyKeyReused();
    if (begun.kind === "replay") {
      return { kind: "replay", stored: begun.response, claimKey: begun.attachment ?? "" };
    }
    if (begun.kind === "in_progress") {
      if (!begun.pending) throw requestInProgress();
      return {
        kind: "in_progress",
        claimKey: begun.pending.attachment ?? "",
        run: this.keyedRun(begun.pending.lease),
      };
    }
    return { kind: "run", ...this.keyedRun(begun.lease) };
  }

  private keyedRun(lease: IdempotencyLease): KeyedRun {
    return {
      key: lease.key,
      complete: async (response) => {
        await this.store.complete(lease, response);
      },
      release: async () => {
        await this.store.release(lease);
      },
      pin: () => this.store.pin(lease),
    };
  }
}
