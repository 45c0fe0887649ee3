import type { Database, Queryable } from "@app/db";
import { changedPolicy, type KeyPolicy, type PolicyChange, type ToolName } from "../domain/key-policy.ts";
import { noteRevocation } from "./revocations.ts";

type PolicyRow = { allow: string[] | null; dailyCap: string | null; ratePerMinute: number | null };

/** A key's policy as stored (every tool, no cap, the default rate when it has none). */
export async function readKeyPolicy(db: Queryable, keyId: string): Promise<KeyPolicy> {
  const [row] = await db.query<PolicyRow>(
    `SELECT allow, daily_cap_micro::text AS "dailyCap", rate_per_minute AS "ratePerMinute"
     FROM gateway.key_policies WHERE key_id = $1`,
    [keyId],
  );
  const caps = await db.query<{ tool: string; cap: string }>(
    "SELECT tool, cap_micro::text AS cap FROM gateway.key_tool_caps WHERE key_id = $1 ORDER BY tool",
    [keyId],
  );
  return {
    allow: row?.allow ?? null,
    dailyCapMicro: row?.dailyCap == null ? null : BigInt(row.dailyCap),
    ratePerMinute: row?.ratePerMinute ?? null,
    toolCapsMicro: Object.fromEntries(caps.map((cap) => [cap.tool, BigInt(cap.cap)])),
  };
}

/** Writes a key's whole policy (its tool caps replaced). */
async function writeKeyPolicy(tx: Queryable, keyId: string, policy: KeyPolicy): Promise<void> {
  await tx.query(
    `INSERT INTO gateway.key_policies (key_id, allow, daily_cap_micro, rate_per_minute)
     VALUES ($1, $2::text[], $3::bigint, $4::integer)
     ON CONFLICT (key_id) DO UPDATE SET allow = EXCLUDED.allow, daily_cap_micro = EXCLUDED.daily_cap_micro,
       rate_per_minute = EXCLUDED.rate_per_minute, updated_at = now()`,
    [keyId, policy.allow, policy.dailyCapMicro?.toString() ?? null, policy.ratePerMinute],
  );
  const caps = Object.entries(policy.toolCapsMicro);
  await tx.query("DELETE FROM gateway.key_tool_caps WHERE key_id = $1", [keyId]);
  if (caps.length === 0) return;
  await tx.query(
    `INSERT INTO gateway.key_tool_caps (key_id, tool, cap_micro)
     SELECT $1, caps.tool, caps.cap::bigint FROM unnest($2::text[], $3::text[]) AS caps (tool, cap)`,
    [keyId, caps.map(([tool]) => tool), caps.map(([, cap]) => cap.toString())],
  );
}

/**
 * Applies `change` to the policy of an active key (of `accountId`, when given), inside `tx`; the
 * policy it leaves, or undefined when there is no such key. The key's row is locked first, so
 * concurrent changes of one key apply one after the other, none lost.
 */
export async function changeKeyPolicy(
  tx: Queryable,
  keyId: string,
  change: PolicyChange,
  accountId?: string,
): Promise<KeyPolicy | undefined> {
  const [key] = await tx.query<{ id: string }>(
    `SELECT id FROM gateway.api_keys
     WHERE id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR account_id = $2::text)
     FOR UPDATE`,
    [keyId, accountId ?? null],
  );
  if (!key) return undefined;
  const policy = changedPolicy(await readKeyPolicy(tx, keyId), change);
  await writeKeyPolicy(tx, keyId, policy);
  return policy;
}

/** What a key spent on the database's current UTC day: in total and per tool. */
export type DailySpend = { day: string; totalMicro: bigint; toolsMicro: Record<ToolName, bigint> };

/**
 * Keys' policies. A change is seen at once by every key cache of this process (they forget every
 * key, as on a revocation) and within the cache's TTL by other instances and processes; the spend
 * caps are read by the charge itself, so a changed cap holds from the next charge on everywhere.
 */
export class KeyPolicyStore {
  constructor(private readonly db: Database) {}

  get(keyId: string): Promise<KeyPolicy> {
    return readKeyPolicy(this.db, keyId);
  }

  /** {@link changeKeyPolicy} in a transaction of its own, the key caches of this process told. */
  async change(keyId: string, change: PolicyChange, accountId?: string): Promise<KeyPolicy | undefined> {
    noteRevocation();
    try {
      return await this.db.transaction((tx) => changeKeyPolicy(tx, keyId, change, accountId));
    } finally {
      noteRevocation();
    }
  }

  async spentToday(keyId: string): Promise<DailySpend> {
    const rows = await this.db.query<{ day: string; tool: string; spent: string }>(
      `SELECT today.day::text AS day, s.tool, s.spent_micro::text AS spent
       FROM (SELECT (now() AT TIME ZONE 'UTC')::date AS day) today
         LEFT JOIN gateway.key_daily_spend s ON s.key_id = $1 AND s.day = today.day
       ORDER BY s.tool`,
      [keyId],
    );
    const spend: DailySpend = { day: rows[0]?.day ?? "", totalMicro: 0n, toolsMicro: {} };
    for (const row of rows) {
      if (row.tool === null || row.spent === null) continue;
      if (row.tool === "") spend.totalMicro = BigInt(row.spent);
      else spend.toolsMicro[row.tool] = BigInt(row.spent);
    }
    return spend;
  }
}
