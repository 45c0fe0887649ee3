import type { Platform } from "../contracts/post.ts";

/**
 * How a platform failure should be handled:
 * - `transient`: try again later (429, 5xx, a dropped connection), honouring `retryAfterMs`;
 * - `permanent`: the platform refused the content or the request; the target fails with `reason`;
 * - `unauthorized`: the access token was refused; refresh it and try once more;
 * - `reconnect`: the grant itself is gone (`invalid_grant`, a revoked app password).
 */
export type FailureKind = "transient" | "permanent" | "unauthorized" | "reconnect";

/** The most of a platform's reason and message kept: they are stored with the target and shown. */
const MAX_REASON_CHARS = 100;
const MAX_MESSAGE_CHARS = 500;

const bounded = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);

/**
 * A failed call to a platform, classified, with the platform's own reason code. The reason and
 * message come from the platform's answer (a self-hosted PDS's too): both are cut to a bound.
 */
export class PlatformError extends Error {
  readonly platform: Platform;
  readonly kind: FailureKind;
  /** The platform's code (`quotaExceeded`, `spam_risk_too_many_posts`, `RateLimitExceeded`, …). */
  readonly reason: string;
  readonly status: number | null;
  readonly retryAfterMs: number | null;
  /**
   * The platform answered and refused: its own error body, or a 4xx/429. Such a request did
   * nothing, unlike one whose answer was lost (timeout, reset, a bare 5xx).
   */
  readonly refused: boolean;

  constructor(
    platform: Platform,
    kind: FailureKind,
    reason: string,
    message: string,
    options: { status?: number | null; retryAfterMs?: number | null; refused?: boolean } = {},
  ) {
    super(bounded(message, MAX_MESSAGE_CHARS));
    this.name = "PlatformError";
    this.platform = platform;
    this.kind = kind;
    this.reason = bounded(reason, MAX_REASON_CHARS);
    this.status = options.status ?? null;
    this.retryAfterMs = options.retryAfterMs ?? null;
    this.refused = options.refused ?? false;
  }

  /** `reason: message`, as stored in a failed target's `error`. */
  describe(): string {
    return `${this.reason}: ${this.message}`;
  }
}

/** The kind an HTTP status suggests when the body says nothing more specific. */
export function kindOfStatus(status: number): FailureKind {
  if (status === 429 || status >= 500) return "transient";
  if (status === 401) return "unauthorized";
  return "permanent";
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (relative to `now`); null when
 * absent or unreadable. Never negative.
 */
export function parseRetryAfter(value: string | null | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - now.getTime());
}

/** Bluesky's `ratelimit-reset` (epoch seconds) as a delay from `now`, or null. */
export function parseRateLimitReset(value: string | null | undefined, now: Date): number | null {
  if (!value || !/^\d+$/.test(value.trim())) return null;
  return Math.max(0, Number(value) * 1000 - now.getTime());
}
