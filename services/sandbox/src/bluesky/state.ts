/**
 * A blob as uploadBlob stored it: its bytes (kept, so `sync.getBlob` can serve them back), their
 * hash and size, and the type sniffed from them. Its JSON form (what `/_sandbox/bluesky/records`
 * lists) leaves the bytes out.
 */
export class StoredBlob {
  readonly #bytes: Buffer;

  constructor(
    readonly cid: string,
    readonly did: string,
    readonly mimeType: string,
    readonly size: number,
    readonly sha256: string,
    readonly uploadedAt: string,
    bytes: Buffer,
  ) {
    this.#bytes = bytes;
  }

  get bytes(): Buffer {
    return this.#bytes;
  }

  toJSON() {
    const { cid, did, mimeType, size, sha256, uploadedAt } = this;
    return { cid, did, mimeType, size, sha256, uploadedAt };
  }
}

/** The key of a blob in {@link BlueskyState.blobs}: blobs belong to the repository that uploaded them. */
export const blobKey = (did: string, cid: string) => `${did} ${cid}`;

/** A record in an account's repository. */
export type StoredRecord = {
  uri: string;
  cid: string;
  did: string;
  collection: string;
  rkey: string;
  /** The record as its JSON form (what getRecord answers). */
  value: Record<string, unknown>;
  /** `valid`, `unknown` (a collection the lexicons do not know), or null when written with `validate: false`. */
  validationStatus: "valid" | "unknown" | null;
  /** CIDs of the blobs the record references. */
  blobs: string[];
  createdAt: string;
  updatedAt: string;
};

/**
 * A refresh token the PDS remembers (by its jti). Once rotated it keeps refreshing until
 * `expiresAt` (the grace period), always into the same next token (`nextJti`), as a PDS does.
 */
export type RefreshTokenEntry = {
  did: string;
  appPassword: boolean;
  /** When it stops refreshing (epoch milliseconds): the JWT's own expiry, or the end of its grace period. */
  expiresAt: number;
  /** Set once rotated: the jti every refresh with this token issues. */
  nextJti?: string;
};

/** The PDS twins' state, in memory: the signing secret is new at each start, so sessions do not survive a restart. */
export type BlueskyState = {
  jwtSecret: Buffer;
  /** Live refresh tokens (by jti): a refresh rotates them, deleteSession and revocation remove them. */
  refreshTokens: Map<string, RefreshTokenEntry>;
  /** Access tokens issued before this instant count as expired (`/_sandbox/tokens/expire`). */
  accessNotBefore: Map<string, number>;
  /** Blobs by {@link blobKey}. */
  blobs: Map<string, StoredBlob>;
  /** Records by AT URI. */
  records: Map<string, StoredRecord>;
};
