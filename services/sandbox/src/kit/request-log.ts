import { createHash } from "node:crypto";
import { isSecretName, REDACTED } from "@app/core";

/** The platform whose API a request spoke (Google OAuth apart from YouTube). */
export type TwinPlatform = "google" | "youtube" | "tiktok" | "bluesky";

/** One request as `GET /_sandbox/requests` shows it: no secret in clear. */
export type LoggedRequest = {
  seq: number;
  at: string;
  requestId: string | null;
  platform: TwinPlatform;
  operation: string;
  method: string;
  path: string;
  /** The query string with secret parameters (codes, tokens, upload ids) redacted. */
  query: Record<string, string>;
  /** `Bearer [redacted] #1a2b3c4d`: the scheme and a fingerprint of the token, never the token. */
  authorization: string | null;
  contentLength: number | null;
  contentRange: string | null;
  /** The answer's status; null when a fault reset the connection or held it until the client gave up. */
  status: number | null;
  /** The id of the fault injected into this request, if any. */
  fault: string | null;
};

/** Query parameters that carry secrets though their names do not say so. */
const SECRET_QUERY = new Set(["code", "code_verifier", "upload_id"]);

/** The first 8 hex digits of the token's SHA-256: tells tokens apart without revealing them. */
export function tokenFingerprint(token: string): string {
  return createHash("sha256").update(token).digest("hex").slice(0, 8);
}

/** An `Authorization` header as it may be logged: its scheme and the token's fingerprint. */
export function redactAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const [scheme = "", ...rest] = header.trim().split(/\s+/);
  const credential = rest.join(" ");
  return credential ? `${scheme} ${REDACTED} #${tokenFingerprint(credential)}` : `${REDACTED}`;
}

/** The query parameters of a URL with every secret value replaced; a repeated one's values joined by commas. */
export function redactQuery(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    const shown = SECRET_QUERY.has(name) || isSecretName(name) ? REDACTED : value;
    out[name] = name in out ? `${out[name]},${shown}` : shown;
  }
  return out;
}

/** The last `capacity` requests the twins received, oldest first. In memory: a restart empties it. */
export class RequestLog {
  private entries: LoggedRequest[] = [];
  private seq = 0;

  constructor(private readonly capacity: number) {}

  record(entry: Omit<LoggedRequest, "seq">): void {
    this.seq += 1;
    this.entries.push({ seq: this.seq, ...entry });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  list(filter: { platform?: string; operation?: string; since?: number } = {}): LoggedRequest[] {
    return this.entries.filter(
      (entry) =>
        (filter.platform === undefined || entry.platform === filter.platform) &&
        (filter.operation === undefined || entry.operation === filter.operation) &&
        (filter.since === undefined || entry.seq > filter.since),
    );
  }

  clear(): void {
    this.entries = [];
  }
}
