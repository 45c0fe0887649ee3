import { createTextSealer, type TextSealer } from "@app/core";

/**
 * The purpose the connection tokens' sealing key is derived for (with `PUBLISHER_TOKEN_SECRET`).
 * Tokens sealed under one purpose open under no other: every process that seals or opens them
 * (the API, the workers, the demo seeding, tests, benchmarks) goes through
 * {@link createConnectionSealer}.
 */
export const CONNECTION_SEALING_PURPOSE = "publisher.connections";

/** The sealer of connection tokens at rest, keyed by the publisher's token secret. */
export function createConnectionSealer(tokenSecret: string): TextSealer {
  return createTextSealer(tokenSecret, CONNECTION_SEALING_PURPOSE);
}
