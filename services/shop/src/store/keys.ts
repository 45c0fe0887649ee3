import { createHash } from "node:crypto";
import { newId, newSecret } from "@app/core";
import type { Queryable } from "@app/db";

/** The prefix of every shop key, so a leaked one is recognisable. */
export const SHOP_KEY_PREFIX = "shk";

/** Who a valid shop key speaks for. */
export type KeyHolder = { keyId: string; shopId: string };

/** A key's record, without the key (which is never kept). */
export type ShopKeyRecord = {
  id: string;
  shopId: string;
  label: string;
  createdAt: Date;
  revokedAt: Date | null;
};

/** A freshly issued key: the only moment the key itself exists outside the caller. */
export type IssuedKey = { id: string; shopId: string; label: string; key: string };

/** SHA-256 of a key, hex: what the database keeps instead of the key. */
export function hashShopKey(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

/** Shop API keys: 256-bit random secrets, stored as SHA-256 hashes, revocable. */
export class ShopKeys {
  constructor(private readonly db: Queryable) {}

  /** Issues a new key for a shop; the key is returned once and never again. */
  async issue(shopId: string, label = ""): Promise<IssuedKey> {
    const key = newSecret(SHOP_KEY_PREFIX);
    const id = newId("key");
    await this.db.query("INSERT INTO shop.shop_keys (id, shop_id, key_hash, label) VALUES ($1, $2, $3, $4)", [
      id,
      shopId,
      hashShopKey(key),
      label,
    ]);
    return { id, shopId, label, key };
  }

  /** The holder of a key that exists and is not revoked. */
  async authenticate(key: string): Promise<KeyHolder | undefined> {
    const [holder] = await this.db.query<KeyHolder>(
      `SELECT id AS "keyId", shop_id AS "shopId" FROM shop.shop_keys WHERE key_hash = $1 AND revoked_at IS NULL`,
      [hashShopKey(key)],
    );
    return holder;
  }

  /** Revokes a key by id; false when there is no such key or it was already revoked. */
  async revoke(keyId: string, at: Date): Promise<boolean> {
    const rows = await this.db.query(
      "UPDATE shop.shop_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id",
      [keyId, at],
    );
    return rows.length > 0;
  }

  /** A shop's keys, oldest first (records only). */
  async list(shopId: string): Promise<ShopKeyRecord[]> {
    return this.db.query<ShopKeyRecord>(
      `SELECT id, shop_id AS "shopId", label, created_at AS "createdAt", revoked_at AS "revokedAt"
       FROM shop.shop_keys WHERE shop_id = $1 ORDER BY created_at, id`,
      [shopId],
    );
  }
}
