/** A blob as uploadBlob stored it: its bytes' hash and size only. */
export type StoredBlob = {
  cid: string;
  did: string;
  mimeType: string;
  size: number;
  sha256: string;
  uploadedAt: string;
};

/** A record in the account's repository. */
export type StoredRecord = {
  uri: string;
  cid: string;
  did: string;
  collection: string;
  rkey: string;
  value: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
};

/** The PDS twin's state, in memory: the signing secret is new at each start, so sessions do not survive a restart. */
export type BlueskyState = {
  jwtSecret: Buffer;
  /** Live refresh tokens (by jti): a refresh rotates them, deleteSession and revocation remove them. */
  refreshTokens: Map<string, { did: string; appPassword: boolean }>;
  /** Access tokens issued before this instant count as expired (`/_sandbox/tokens/expire`). */
  accessNotBefore: Map<string, number>;
  blobs: Map<string, StoredBlob>;
  records: Map<string, StoredRecord>;
};
