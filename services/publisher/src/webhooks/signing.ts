import { Webhook } from "standardwebhooks";

/** The Standard Webhooks headers of one attempt. */
export type SignatureHeaders = {
  /** The event's id: the same for every attempt of it, so a receiver can drop repeats. */
  "webhook-id": string;
  /** The attempt's time, in whole seconds since the epoch. */
  "webhook-timestamp": string;
  /** `v1,<base64>` per secret, space-separated (the current secret first). */
  "webhook-signature": string;
};

/**
 * Signs one attempt with the `standardwebhooks` library: a `v1` signature of
 * `{id}.{timestamp}.{payload}` under each secret given (the current one, and during a rotation's
 * 24 hours the one before it too, which the spec allows as a space-separated list).
 */
export function signAttempt(input: {
  messageId: string;
  at: Date;
  payload: string;
  secrets: readonly string[];
}): SignatureHeaders {
  const signatures = input.secrets.map((secret) =>
    new Webhook(secret).sign(input.messageId, input.at, input.payload),
  );
  return {
    "webhook-id": input.messageId,
    "webhook-timestamp": String(Math.floor(input.at.getTime() / 1000)),
    "webhook-signature": signatures.join(" "),
  };
}
