import { apiKeyHash, isPlausibleApiKey } from "@app/edge";
import type { AccountStore, Caller } from "./accounts.ts";
import type { BalanceView } from "./balances.ts";
import { revocationCount } from "./revocations.ts";

/** How long a key found valid is trusted without asking the database again. */
export const KEY_CACHE_TTL_MS = 1_000;

/** Keys kept at most; the oldest go first beyond it. */
const MAX_ENTRIES = 10_000;

type Entry = { caller: Caller; expiresAt: number; revocations: number };

/**
 * The valid keys this instance has seen lately, by SHA-256 (never the key itself), each trusted
 * for {@link KEY_CACHE_TTL_MS}. A key revoked in this process is refused at once (the cache is
 * dropped on revocation); one revoked by another instance or the CLI in another process is
 * refused within the TTL. Unknown and revoked keys are never cached: each is a lookup, as before.
 * A lookup also refreshes the account's balance in the {@link BalanceView} and, at most once a
 * minute, the key's `last_used_at`. Keys are the shared API keys, hashed and bounded as `@app/edge` does.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly pending = new Map<string, { lookup: Promise<Caller | undefined>; revocations: number }>();

  constructor(
    private readonly accounts: AccountStore,
    private readonly balances: BalanceView,
    private readonly now: () => number = () => performance.now(),
    private readonly ttlMs = KEY_CACHE_TTL_MS,
  ) {}

  async authenticate(key: string): Promise<Caller | undefined> {
    if (!isPlausibleApiKey(key)) return undefined;
    const hash = apiKeyHash(key);
    const entry = this.entries.get(hash);
    if (entry && entry.revocations === revocationCount() && entry.expiresAt > this.now()) return entry.caller;
    // Concurrent first requests of one key share one lookup (not one begun before a revocation).
    const pending = this.pending.get(hash);
    if (pending && pending.revocations === revocationCount()) return pending.lookup;
    const lookup = this.lookup(hash);
    const started = { lookup, revocations: revocationCount() };
    this.pending.set(hash, started);
    const forget = () => {
      if (this.pending.get(hash) === started) this.pending.delete(hash);
    };
    lookup.then(forget, forget);
    return lookup;
  }

  private async lookup(hash: string): Promise<Caller | undefined> {
    const seen = revocationCount();
    const found = await this.accounts.lookupHash(hash);
    this.entries.delete(hash);
    if (!found) return undefined;
    this.balances.observe(found.caller.accountId, found.balanceMicro);
    this.accounts.recordKeyUse(found);
    // A revocation while the lookup ran may not be in what it read: use the answer, keep nothing.
    if (seen === revocationCount()) {
      if (this.entries.size >= MAX_ENTRIES) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      this.entries.set(hash, { caller: found.caller, expiresAt: this.now() + this.ttlMs, revocations: seen });
    }
    return found.caller;
  }
}
