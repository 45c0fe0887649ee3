import { requestFingerprint } from "@app/edge";

/**
 * The fingerprint of a run request for `Idempotency-Key` comparison: the shared canonical
 * fingerprint of the tool (its method in upper case) and its input. The caller passes only the
 * tool and its input, never the upstream key, so a retry is recognised whatever key it carries
 * and no trace of the key reaches the database.
 */
export function runFingerprint(request: {
  provider: string;
  endpoint: string;
  method: string;
  input?: unknown;
}): string {
  return requestFingerprint({
    provider: request.provider,
    endpoint: request.endpoint,
    method: request.method.toUpperCase(),
    input: request.input ?? {},
  });
}
