import { type Clock, type TextSealer, toIso } from "@app/core";
import type { AttemptRecord, ClaimedDelivery, DeliveredEvent } from "./delivery-store.ts";
import { signingSecrets } from "./endpoint-store.ts";
import { responseExcerpt } from "./excerpt.ts";
import { isLastAttempt, parseRetryAfter, retryDelayMs, type WebhookRetryPolicy } from "./retry-schedule.ts";
import type { WebhookSender } from "./sender.ts";
import { signAttempt } from "./signing.ts";

/** The body every attempt of an event sends (Standard Webhooks): `{type, timestamp, data}`. */
export function webhookPayload(event: DeliveredEvent): string {
  return JSON.stringify({ type: event.type, timestamp: toIso(event.occurredAt), data: event.data });
}

/** What an attempt is made with. */
export type AttemptDeps = {
  clock: Clock;
  sealer: TextSealer;
  sender: WebhookSender;
  policy: WebhookRetryPolicy;
  /** In [0, 1): the retry delays' jitter. */
  random: () => number;
};

/** When the delivery is due again after this failed attempt; null when it is given up. */
function nextAttemptAt(
  deps: AttemptDeps,
  claim: ClaimedDelivery,
  retryAfter: string | undefined,
  now: Date,
): Date | null {
  const final = claim.finalAttempt !== null && claim.attempt >= claim.finalAttempt;
  if (final || isLastAttempt(deps.policy, claim.attempt)) return null;
  const delay = retryDelayMs(deps.policy, claim.attempt, parseRetryAfter(retryAfter, now), deps.random);
  return new Date(now.getTime() + delay);
}

/**
 * Makes one attempt of a claimed delivery: the payload signed (its webhook-id the event's id, the
 * same for every attempt; its timestamp now; a signature per valid secret), sent through the
 * sender, and judged: a 2xx delivers; anything else (a redirect included: none is followed), or
 * no answer, schedules the next attempt (the receiver's Retry-After honoured) or gives up after
 * the last. Returns what is to be recorded; the secrets appear nowhere in it.
 */
export async function makeAttempt(deps: AttemptDeps, claim: ClaimedDelivery): Promise<AttemptRecord> {
  const at = deps.clock.now();
  let secrets: string[];
  try {
    secrets = signingSecrets(deps.sealer, claim.endpoint, at);
  } catch {
    // The token secret changed since the endpoint was made: nothing can be signed, nothing is sent.
    return {
      delivered: false,
      responseStatus: null,
      latencyMs: 0,
      excerpt: null,
      error: "Not sent: the endpoint's signing secret cannot be opened (rotate it).",
      timedOut: false,
      retryAt: nextAttemptAt(deps, claim, undefined, at),
    };
  }
  const payload = webhookPayload(claim.event);
  const headers = signAttempt({ messageId: claim.event.id, at, payload, secrets });
  const response = await deps.sender.send({ url: claim.endpoint.url, headers, body: payload });
  const now = deps.clock.now();
  if (response.kind === "failed") {
    return {
      delivered: false,
      responseStatus: null,
      latencyMs: response.latencyMs,
      excerpt: null,
      error: response.error,
      timedOut: response.timedOut,
      retryAt: nextAttemptAt(deps, claim, undefined, now),
    };
  }
  const signatures = headers["webhook-signature"].split(" ").map((signature) => signature.slice(3));
  const excerpt = responseExcerpt(response.body, [...secrets, ...signatures]);
  const delivered = response.status >= 200 && response.status < 300;
  const redirect = response.status >= 300 && response.status < 400;
  return {
    delivered,
    responseStatus: response.status,
    latencyMs: response.latencyMs,
    excerpt,
    error: delivered
      ? null
      : redirect
        ? `The receiver answered ${response.status}: redirects are not followed.`
        : `The receiver answered ${response.status}.`,
    timedOut: false,
    retryAt: delivered ? null : nextAttemptAt(deps, claim, response.retryAfter, now),
  };
}
