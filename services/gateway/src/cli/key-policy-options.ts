import { type CliOptions, CliUsageError } from "@app/runtime";
import { type PolicyChange, policyChangeIssues, type ToolName, toolName } from "../domain/key-policy.ts";
import { parseUsd } from "../domain/money.ts";
import { PROVIDERS } from "../registry/providers.ts";

/** The options of `keys create` and `keys policy` that set a key's policy. */
export const POLICY_OPTIONS = ["providers?", "tools?", "daily-cap?", "tool-caps?", "rate?"];

/** What clears a setting: every tool, no cap (`--rate default`: the gateway's default rate). */
const NONE = "none";

const list = (text: string) =>
  text
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);

function usd(text: string, option: string): bigint {
  const micro = /^\d{1,10}(\.\d{1,6})?$/.test(text.trim()) ? parseUsd(text) : undefined;
  if (micro === undefined) {
    throw new CliUsageError(
      `--${option} must be a USD amount with at most 6 decimals, like 0.10, or ${NONE}.`,
    );
  }
  return micro;
}

function allowOf(options: CliOptions): string[] | null | undefined {
  const { providers, tools } = options;
  if (providers === undefined && tools === undefined) return undefined;
  if (providers?.trim() === "all" && tools === undefined) return null;
  return [...list(providers ?? ""), ...list(tools ?? "")];
}

function toolCapsOf(text: string | undefined): Record<ToolName, bigint> | null | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === NONE) return null;
  const caps: Record<ToolName, bigint> = {};
  for (const entry of list(text)) {
    const at = entry.lastIndexOf("=");
    if (at < 1)
      throw new CliUsageError('--tool-caps is a list like "markets /pm/event GET=0.05,…", or none.');
    caps[entry.slice(0, at).trim()] = usd(entry.slice(at + 1), "tool-caps");
  }
  return caps;
}

function rateOf(text: string | undefined): number | null | undefined {
  if (text === undefined) return undefined;
  if (text.trim() === "default") return null;
  if (!/^\d{1,7}$/.test(text.trim()))
    throw new CliUsageError("--rate must be a whole number of runs a minute, or default.");
  return Number(text);
}

/**
 * The policy change the options ask for (each option given replaces its part of the policy):
 *
 * - `--providers markets,shop` and `--tools "publisher /api/v1/posts GET,…"`: the allowlist, made
 *   of both (either given replaces it); `--providers all` alone: every tool.
 * - `--daily-cap 0.10`: the most the key spends per UTC day; `none`: no cap.
 * - `--tool-caps "markets /pm/event GET=0.05,…"`: per-tool daily caps (all replaced); `none`.
 * - `--rate 60`: the key's runs a minute; `default`: the gateway's default.
 *
 * Checked as the HTTP route checks it, against the gateway's tools.
 */
export function policyChangeOf(options: CliOptions): PolicyChange {
  const change: PolicyChange = {};
  const allow = allowOf(options);
  if (allow !== undefined) change.allow = allow;
  const dailyCap = options["daily-cap"];
  if (dailyCap !== undefined)
    change.dailyCapMicro = dailyCap.trim() === NONE ? null : usd(dailyCap, "daily-cap");
  const toolCaps = toolCapsOf(options["tool-caps"]);
  if (toolCaps !== undefined) change.toolCapsMicro = toolCaps;
  const rate = rateOf(options.rate);
  if (rate !== undefined) change.ratePerMinute = rate;
  const tools = PROVIDERS.flatMap((provider) =>
    provider.tools.map((tool) => ({ provider: provider.id, endpoint: tool.endpoint, method: tool.method })),
  );
  const issues = policyChangeIssues(change, tools);
  if (issues.length > 0) {
    throw new CliUsageError(
      [
        "The policy is not valid:",
        ...issues.map((issue) => `  ${issue.path}: ${issue.message}`),
        `Providers: ${PROVIDERS.map((provider) => provider.id).join(", ")}. Tools: ${tools.map(toolName).join(", ")}.`,
      ].join("\n"),
    );
  }
  return change;
}

/** Whether the options set any part of a policy. */
export function setsPolicy(change: PolicyChange): boolean {
  return Object.keys(change).length > 0;
}
