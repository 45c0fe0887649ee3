import { randomBytes } from "node:crypto";
import { createTextSealer, type TextSealer } from "@app/core";

/**
 * The purpose the webhook secrets' sealing key is derived for (with `PUBLISHER_TOKEN_SECRET`),
 * apart from the connection tokens' (`publisher.connections`): a secret sealed under one opens
 * under no other.
 */
export const WEBHOOK_SEALING_PURPOSE = "publisher.webhooks";

/** Random bytes in a secret: Standard Webhooks asks for 24 to 64. */
export const WEBHOOK_SECRET_BYTES = 32;

/** How long the secret before a rotation still signs deliveries. */
export const PREVIOUS_SECRET_TTL_MS = 24 * 3_600_000;

/** The sealer of webhook signing secrets at rest, keyed by the publisher's token secret. */
export function createWebhookSealer(tokenSecret: string): TextSealer {
  return createTextSealer(tokenSecret, WEBHOOK_SEALING_PURPOSE);
}

/** A new signing secret in the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(WEBHOOK_SECRET_BYTES).toString("base64")}`;
}

/** Seals a secret for its endpoint's row (bound to the endpoint id: opened for another, it fails). */
export const sealSecret = (sealer: TextSealer, endpointId: string, secret: string): string =>
  sealer.seal(secret, endpointId);

/** Opens an endpoint's sealed secret. */
export const openSecret = (sealer: TextSealer, endpointId: string, sealed: string): string =>
  sealer.open(sealed, endpointId);
