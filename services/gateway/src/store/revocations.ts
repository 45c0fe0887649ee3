/**
 * Bumped by every revocation made in this process (any `AccountStore`, the CLI's included), and by
 * every change of a key's policy (`KeyPolicyStore`), so every key cache of the process forgets
 * every key at once: both are rare, a lookup cheap.
 */
let count = 0;

/** Tells every key cache of this process that a key was (or is about to be) revoked, or its policy changed. */
export function noteRevocation(): void {
  count += 1;
}

/** How many revocations this process has made: a cache entry is good only under the same count. */
export function revocationCount(): number {
  return count;
}
