import { createHash } from "node:crypto";
import type { Queryable } from "@app/db";

/** A consent traded for tokens, waiting for the person at the browser to confirm it. */
export type OAuthGrantRow = {
  accountId: string;
  platform: "youtube" | "tiktok";
  platformAccountId: string;
  accountName: string;
  /** The tokens, sealed (`oauth-grant`). */
  sealedSecrets: string;
};

const hashConfirmation = (confirmation: string) => createHash("sha256").update(confirmation).digest("hex");

export async function insertOAuthGrant(
  db: Queryable,
  input: OAuthGrantRow & { confirmation: string; expiresAt: Date; now: Date },
): Promise<void> {
  await db.query("DELETE FROM publisher.oauth_grants WHERE expires_at < $1", [input.now]);
  await db.query(
    `INSERT INTO publisher.oauth_grants
       (confirmation_hash, account_id, platform, platform_account_id, account_name, secrets, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [
      hashConfirmation(input.confirmation),
      input.accountId,
      input.platform,
      input.platformAccountId,
      input.accountName,
      input.sealedSecrets,
      input.expiresAt,
    ],
  );
}

/** Takes a grant once (deleted whether or not it is still live); expired or unknown → undefined. */
export async function consumeOAuthGrant(
  db: Queryable,
  input: { confirmation: string; platform: "youtube" | "tiktok"; now: Date },
): Promise<OAuthGrantRow | undefined> {
  const [row] = await db.query<OAuthGrantRow & { expiresAt: Date }>(
    `DELETE FROM publisher.oauth_grants WHERE confirmation_hash = $1 AND platform = $2
     RETURNING account_id AS "accountId", platform, platform_account_id AS "platformAccountId",
       account_name AS "accountName", secrets AS "sealedSecrets", expires_at AS "expiresAt"`,
    [hashConfirmation(input.confirmation), input.platform],
  );
  if (!row || row.expiresAt.getTime() <= input.now.getTime()) return undefined;
  return row;
}
