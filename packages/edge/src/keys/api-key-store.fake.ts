import { type Clock, newId, systemClock } from "@app/core";
import { apiKeyHash, isPlausibleApiKey, issueApiKey, sameKeyHash } from "./api-key.ts";
import type {
  ApiKeyRecord,
  ApiKeyRequest,
  ApiKeyStore,
  IssuedApiKey,
  VerifiedApiKey,
} from "./api-key-store.ts";
import { lastUsedIsStale } from "./last-used.ts";

type StoredKey<S extends string> = ApiKeyRecord<S> & { keyHash: string };

/**
 * An {@link ApiKeyStore} in memory, for route tests that need no database: it keeps what the
 * table keeps (the hash, never the key) and answers as {@link DatabaseApiKeyStore} does.
 */
export class InMemoryApiKeyStore<S extends string = string> implements ApiKeyStore<S> {
  private readonly keys: StoredKey<S>[] = [];

  constructor(
    private readonly keyPrefix: string,
    private readonly clock: Clock = systemClock,
    /** What a key issued without a label is labelled (the table's default). */
    private readonly defaultLabel: string | null = "",
  ) {}

  async issue(request: ApiKeyRequest<S>): Promise<IssuedApiKey<S>> {
    const { key, hash, shownPrefix } = issueApiKey(this.keyPrefix);
    const stored: StoredKey<S> = {
      id: newId("key"),
      ownerId: request.ownerId,
      prefix: shownPrefix,
      label: request.label ?? this.defaultLabel,
      scopes: [...(request.scopes ?? [])],
      createdAt: this.clock.now(),
      lastUsedAt: null,
      revokedAt: null,
      keyHash: hash,
    };
    this.keys.push(stored);
    const { id, ownerId, prefix, label, scopes } = stored;
    return { id, ownerId, key, prefix, label, scopes: [...scopes] };
  }

  async verify(key: string): Promise<VerifiedApiKey<S> | undefined> {
    if (!isPlausibleApiKey(key)) return undefined;
    const hash = apiKeyHash(key);
    const found = this.keys.find((stored) => stored.revokedAt === null && sameKeyHash(hash, stored.keyHash));
    if (!found) return undefined;
    const now = this.clock.now();
    if (lastUsedIsStale(found.lastUsedAt, now)) found.lastUsedAt = now;
    return { keyId: found.id, ownerId: found.ownerId, scopes: [...found.scopes] };
  }

  async revoke(keyId: string, at: Date): Promise<boolean> {
    const found = this.keys.find((stored) => stored.id === keyId && stored.revokedAt === null);
    if (found) found.revokedAt = at;
    return found !== undefined;
  }

  async revokeLabelled(ownerId: string, label: string, at: Date): Promise<number> {
    const matching = this.keys.filter(
      (stored) => stored.ownerId === ownerId && stored.label === label && stored.revokedAt === null,
    );
    for (const stored of matching) stored.revokedAt = at;
    return matching.length;
  }

  async list(ownerId: string): Promise<ApiKeyRecord<S>[]> {
    return this.keys
      .filter((stored) => stored.ownerId === ownerId)
      .map(({ keyHash: _hash, ...record }) => ({ ...record, scopes: [...record.scopes] }));
  }
}
