import { createHash } from "node:crypto";
import { requestFingerprint } from "@app/edge";

/** Keeps the digest of an upstream key apart from any other SHA-256 of the same text. */
const UPSTREAM_KEY_LABEL = "gateway upstream key\0";

/** The SHA-256 (hex) of an upstream key: what binds a stored answer to it, never the key. */
export function upstreamKeyDigest(upstreamKey: string): string {
  return createHash("sha256").update(UPSTREAM_KEY_LABEL).update(upstreamKey).digest("hex");
}

/**
 * The fingerprint of a run request for `Idempotency-Key` comparison: the shared canonical
 * fingerprint of the tool (its method in upper case), its input and, for a tool that sends the
 * caller's upstream key, that key's digest ({@link upstreamKeyDigest}). A replay is then the
 * answer of a request made with the same upstream key: another key, or none, is another request
 * (422), so a stored answer is never read without the key that fetched it. Only hashes of the
 * key reach the database.
 */
export function runFingerprint(
  request: { provider: string; endpoint: string; method: string; input?: unknown },
  upstreamKey?: string,
): string {
  return requestFingerprint({
    provider: request.provider,
    endpoint: request.endpoint,
    method: request.method.toUpperCase(),
    input: request.input ?? {},
    ...(upstreamKey === undefined ? {} : { upstreamKey: upstreamKeyDigest(upstreamKey) }),
  });
}
