/**
 * Bumped by every revocation made in this process (any `AccountStore`, the CLI's included), so
 * every key cache of the process forgets every key at once: a revocation is rare, a lookup cheap.
 */
let count = 0;

/** Tells every key cache of this process that a key was (or is about to be) revoked. */
export function noteRevocation(): void {
  count += 1;
}

/** How many revocations this process has made: a cache entry is good only under the same count. */
export function revocationCount(): number {
  return count;
}
