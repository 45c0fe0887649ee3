import type { Clock } from "@app/core";
import type { Queryable } from "@app/db";
import { DatabaseApiKeyStore } from "@app/edge";

/** The prefix of every shop key, so a leaked one is recognisable. */
export const SHOP_KEY_PREFIX = "shk";

/** Who a valid shop key speaks for. */
export type ShopKeyHolder = { keyId: string; shopId: string };

/** A key's record, without the key (which is never kept). */
export type ShopKeyRecord = {
  id: string;
  shopId: string;
  /** The key's first characters (`shk_a1b2`), empty for keys issued before they were kept. */
  prefix: string;
  label: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** A freshly issued key: the only moment the key itself exists outside the caller. */
export type IssuedShopKey = { id: string; shopId: string; label: string; key: string };

/**
 * Shop API keys: the shared API keys (`@app/edge`: 256-bit random secrets shown once, kept as
 * SHA-256 hashes, verified in constant time, revocable) in `shop.shop_keys`, owned by a shop.
 */
export class ShopKeys {
  private readonly keys: DatabaseApiKeyStore;

  constructor(db: Queryable, clock?: Clock) {
    this.keys = new DatabaseApiKeyStore(db, {
      table: "shop.shop_keys",
      ownerColumn: "shop_id",
      keyPrefix: SHOP_KEY_PREFIX,
      clock,
    });
  }

  /** Issues a new key for a shop; the key is returned once and never again. */
  async issue(shopId: string, label = ""): Promise<IssuedShopKey> {
    const issued = await this.keys.issue({ ownerId: shopId, label });
    return { id: issued.id, shopId, label, key: issued.key };
  }

  /** The holder of a key that exists and is not revoked. */
  async authenticate(key: string): Promise<ShopKeyHolder | undefined> {
    const verified = await this.keys.verify(key);
    return verified && { keyId: verified.keyId, shopId: verified.ownerId };
  }

  /** Revokes a key by id; false when there is no such key or it was already revoked. */
  revoke(keyId: string, at: Date): Promise<boolean> {
    return this.keys.revoke(keyId, at);
  }

  /** A shop's keys, oldest first (records only). */
  async list(shopId: string): Promise<ShopKeyRecord[]> {
    return (await this.keys.list(shopId)).map(({ ownerId, scopes: _scopes, label, ...record }) => ({
      ...record,
      shopId: ownerId,
      label: label ?? "",
    }));
  }
}
