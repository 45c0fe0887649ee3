import { ApiError, requestHeader } from "@app/core";
import type { Context } from "hono";
import { parseItem } from "structured-headers";

/** The request header that makes a retry safe (IETF draft "The Idempotency-Key HTTP Header Field"). */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

/** The longest key taken, in characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** What a well-formed key is, as the 400 says it. */
const KEY_RULE =
  'must be 1 to 255 visible ASCII characters, or a Structured Field string of 1 to 255 characters ("…")';

const BARE_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * The key an `Idempotency-Key` value carries, or undefined when it is malformed. The draft makes
 * the field a Structured Field string (`"8e03978e-40d5"`): its content is the key. The bare form
 * every client of this platform has sent so far (`8e03978e-40d5`, 1 to 255 visible ASCII
 * characters) is the key as it stands. A value that opens with a quote must be a well-formed
 * string (its parameters, if any, are ignored).
 */
export function parseIdempotencyKey(value: string): string | undefined {
  const trimmed = value.trim();
  if (!trimmed.startsWith('"')) return BARE_KEY.test(trimmed) ? trimmed : undefined;
  let item: unknown;
  try {
    [item] = parseItem(trimmed);
  } catch {
    return undefined;
  }
  if (typeof item !== "string" || item.length === 0 || item.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return undefined;
  return item;
}

/**
 * The one error for a malformed `Idempotency-Key`, in every service: 400 `VALIDATION_FAILED` with
 * an issue naming the header, as any other invalid header is answered.
 */
export function invalidIdempotencyKey(): ApiError {
  return new ApiError("VALIDATION_FAILED", "The request is not valid in the headers.", {
    issues: [{ path: IDEMPOTENCY_KEY_HEADER, message: KEY_RULE }],
  });
}

/** A request's `Idempotency-Key`: undefined when it sent none; throws {@link invalidIdempotencyKey} when malformed. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const value = requestHeader(c, IDEMPOTENCY_KEY_HEADER);
  if (value === undefined) return undefined;
  const key = parseIdempotencyKey(value);
  if (key === undefined) throw invalidIdempotencyKey();
  return key;
}
