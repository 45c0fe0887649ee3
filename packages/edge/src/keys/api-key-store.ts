/** What a key is issued with: its owner (an account, a shop), a label, its scopes. */
export type ApiKeyRequest<S extends string = string> = {
  ownerId: string;
  /** Omitted: the table's default (`''` or null). */
  label?: string;
  scopes?: readonly S[];
};

/** A freshly issued key: the only moment the key itself exists outside its owner. */
export type IssuedApiKey<S extends string = string> = {
  id: string;
  ownerId: string;
  key: string;
  prefix: string;
  label: string | null;
  scopes: S[];
};

/** Who a valid key speaks for, and what it may do. */
export type VerifiedApiKey<S extends string = string> = { keyId: string; ownerId: string; scopes: S[] };

/** A key's record, without the key (which is never kept). */
export type ApiKeyRecord<S extends string = string> = {
  id: string;
  ownerId: string;
  /** The key's first characters (`gwk_a1b2`), empty for keys issued before they were kept. */
  prefix: string;
  label: string | null;
  scopes: S[];
  createdAt: Date;
  /** When the key was last used, to the minute (null: never). */
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/**
 * A service's API keys: 256-bit random secrets shown once, kept as SHA-256 hashes, verified in
 * constant time, scoped, revocable, their last use recorded. Implementations: a keys table of the
 * service ({@link DatabaseApiKeyStore}) and one in memory for tests ({@link InMemoryApiKeyStore}).
 */
export interface ApiKeyStore<S extends string = string> {
  /** Issues a key; the key is returned here once and never again. */
  issue(request: ApiKeyRequest<S>): Promise<IssuedApiKey<S>>;
  /** The holder of a key that exists and is not revoked (its last use recorded), else undefined. */
  verify(key: string): Promise<VerifiedApiKey<S> | undefined>;
  /** Revokes a key by id; false when there is no such active key. */
  revoke(keyId: string, at: Date): Promise<boolean>;
  /** Revokes every active key of an owner bearing `label`; how many. */
  revokeLabelled(ownerId: string, label: string, at: Date): Promise<number>;
  /** An owner's keys, oldest first (records only). */
  list(ownerId: string): Promise<ApiKeyRecord<S>[]>;
}
