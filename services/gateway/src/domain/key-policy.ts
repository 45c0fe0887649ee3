import type { ValidationIssue } from "@app/core";
import { formatUsd } from "./money.ts";

/**
 * Per-key policies: which tools a key may see and run, how much it may spend per UTC day (in
 * total and per tool) and how many runs it may start a minute. Pure: no database, no HTTP.
 */

/** A tool as policies and prices name it: `"provider endpoint METHOD"` (`"markets /pm/event GET"`). */
export type ToolName = string;

/** What names a tool: its provider's id, its endpoint (the path template) and its method. */
export type ToolParts = { provider: string; endpoint: string; method: string };

/** The name of a tool: `"provider endpoint METHOD"`. */
export function toolName(tool: ToolParts): ToolName {
  return `${tool.provider} ${tool.endpoint} ${tool.method}`;
}

/** Most entries in an allowlist, and most tool caps, of one key. */
export const MAX_POLICY_ENTRIES = 100;

/** Bounds of a key's own rate (runs a minute), the same as the gateway's default. */
export const RATE_PER_MINUTE = { min: 1, max: 1_000_000 } as const;

/**
 * What a key may reach, carried with its caller (cached with the key, see `KeyCache`): checked by
 * the catalog, `inspect` and `run`, over HTTP and MCP, and by the rate limit. The spend caps are
 * not here: the charge reads them from the database in the statement that applies them.
 */
export type KeyAccess = {
  /** Provider ids and tool names the key may use; null: every tool. */
  allow: readonly string[] | null;
  /** Runs a minute for this key; null: the gateway's default. */
  ratePerMinute: number | null;
};

/** A key's whole policy. */
export type KeyPolicy = KeyAccess & {
  /** The most the key may spend per UTC day, every tool together; null: no cap. */
  dailyCapMicro: bigint | null;
  /** The most the key may spend per UTC day on each of these tools. */
  toolCapsMicro: Readonly<Record<ToolName, bigint>>;
};

/** The policy of a key that has none: every tool, no cap, the default rate. */
export const NO_POLICY: KeyPolicy = {
  allow: null,
  ratePerMinute: null,
  dailyCapMicro: null,
  toolCapsMicro: {},
};

/** Whether a policy limits its key at all (a key without one may set the policies of its account's keys). */
export function isLimited(policy: KeyPolicy): boolean {
  return (
    policy.allow !== null ||
    policy.ratePerMinute !== null ||
    policy.dailyCapMicro !== null ||
    Object.keys(policy.toolCapsMicro).length > 0
  );
}

/** Whether a key with `access` may see and run `tool` (no access given: every tool). */
export function allowsTool(access: KeyAccess | undefined, tool: ToolParts): boolean {
  const allow = access?.allow;
  return !allow || allow.includes(tool.provider) || allow.includes(toolName(tool));
}

/**
 * A change to a key's policy: each field given replaces that part of it, `null` clears it (every
 * tool, no cap, the default rate); a field left out keeps what it was.
 */
export type PolicyChange = {
  allow?: string[] | null;
  dailyCapMicro?: bigint | null;
  toolCapsMicro?: Record<ToolName, bigint> | null;
  ratePerMinute?: number | null;
};

/** The policy once `change` is applied to it. */
export function changedPolicy(policy: KeyPolicy, change: PolicyChange): KeyPolicy {
  return {
    allow: change.allow === undefined ? policy.allow : change.allow && [...new Set(change.allow)],
    dailyCapMicro: change.dailyCapMicro === undefined ? policy.dailyCapMicro : change.dailyCapMicro,
    toolCapsMicro:
      change.toolCapsMicro === undefined ? policy.toolCapsMicro : { ...(change.toolCapsMicro ?? {}) },
    ratePerMinute: change.ratePerMinute === undefined ? policy.ratePerMinute : change.ratePerMinute,
  };
}

/**
 * What is wrong with a change, given the tools of the gateway: an allowlist entry must be a
 * provider id or a tool name of a registered tool, a tool cap must name a registered tool, and
 * each list holds 1 to {@link MAX_POLICY_ENTRIES} entries. Empty when it can be applied.
 */
export function policyChangeIssues(change: PolicyChange, tools: readonly ToolParts[]): ValidationIssue[] {
  const providers = new Set(tools.map((tool) => tool.provider));
  const names = new Set(tools.map(toolName));
  const issues: ValidationIssue[] = [];
  if (change.allow) {
    if (change.allow.length === 0 || change.allow.length > MAX_POLICY_ENTRIES) {
      issues.push({
        path: "allow",
        message: `must list 1 to ${MAX_POLICY_ENTRIES} provider ids or tools (null: every tool)`,
      });
    }
    change.allow.forEach((entry, index) => {
      if (!providers.has(entry) && !names.has(entry)) {
        issues.push({
          path: `allow.${index}`,
          message: 'names no provider or tool: a provider id, or a tool as "provider endpoint METHOD"',
        });
      }
    });
  }
  if (change.toolCapsMicro) {
    const capped = Object.keys(change.toolCapsMicro);
    if (capped.length > MAX_POLICY_ENTRIES) {
      issues.push({ path: "toolCaps", message: `caps at most ${MAX_POLICY_ENTRIES} tools` });
    }
    for (const name of capped) {
      if (!names.has(name)) {
        issues.push({
          path: `toolCaps.${name}`,
          message: 'names no tool: a tool is named "provider endpoint METHOD"',
        });
      }
    }
  }
  const rate = change.ratePerMinute;
  if (
    rate !== undefined &&
    rate !== null &&
    (!Number.isInteger(rate) || rate < RATE_PER_MINUTE.min || rate > RATE_PER_MINUTE.max)
  ) {
    issues.push({
      path: "ratePerMinute",
      message: `must be a whole number from ${RATE_PER_MINUTE.min} to ${RATE_PER_MINUTE.max}`,
    });
  }
  return issues;
}

/** A policy as it is answered and printed: amounts as decimal USD strings. */
export type PolicyView = {
  allow: string[] | null;
  dailyCap: string | null;
  toolCaps: Record<ToolName, string>;
  ratePerMinute: number | null;
};

export function policyView(policy: KeyPolicy): PolicyView {
  return {
    allow: policy.allow ? [...policy.allow] : null,
    dailyCap: policy.dailyCapMicro === null ? null : formatUsd(policy.dailyCapMicro),
    toolCaps: Object.fromEntries(
      Object.entries(policy.toolCapsMicro).map(([name, cap]) => [name, formatUsd(cap)]),
    ),
    ratePerMinute: policy.ratePerMinute,
  };
}

/** When a UTC day's spend is forgotten: the midnight (UTC) that ends `day` (`YYYY-MM-DD`). */
export function dayResetsAt(day: string): Date {
  const start = new Date(`${day}T00:00:00.000Z`);
  return new Date(start.getTime() + 24 * 60 * 60 * 1000);
}
