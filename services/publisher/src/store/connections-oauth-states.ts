import { createHash } from "node:crypto";
import type { Queryable } from "@app/db";

export type OAuthStateRow = {
  accountId: string;
  platform: "youtube" | "tiktok";
  sealedVerifier: string;
  redirectUri: string;
};

/** The stored form of a state: its SHA-256, so a database read does not reveal live states. */
export const hashState = (state: string) => createHash("sha256").update(state).digest("hex");

export async function insertOAuthState(
  db: Queryable,
  input: OAuthStateRow & { state: string; expiresAt: Date; now: Date },
): Promise<void> {
  await db.query("DELETE FROM publisher.oauth_states WHERE expires_at < $1", [input.now]);
  await db.query(
    `INSERT INTO publisher.oauth_states (state_hash, account_id, platform, code_verifier, redirect_uri, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6)`,
    [
      hashState(input.state),
      input.accountId,
      input.platform,
      input.sealedVerifier,
      input.redirectUri,
      input.expiresAt,
    ],
  );
}

/** Takes a state once: the row is deleted whether or not it is still live; expired or unknown → undefined. */
export async function consumeOAuthState(
  db: Queryable,
  input: { state: string; platform: "youtube" | "tiktok"; now: Date },
): Promise<OAuthStateRow | undefined> {
  const [row] = await db.query<OAuthStateRow & { expiresAt: Date }>(
    `DELETE FROM publisher.oauth_states WHERE state_hash = $1 AND platform = $2
     RETURNING account_id AS "accountId", platform, code_verifier AS "sealedVerifier", redirect_uri AS "redirectUri",
       expires_at AS "expiresAt"`,
    [hashState(input.state), input.platform],
  );
  if (!row || row.expiresAt.getTime() <= input.now.getTime()) return undefined;
  return row;
}
