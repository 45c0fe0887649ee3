/** What an API key may do: read posts, groups and connections; write posts; upload media. */
export const SCOPES = ["posts:read", "posts:write", "media:write"] as const;

export type Scope = (typeof SCOPES)[number];

export const isScope = (value: string): value is Scope => (SCOPES as readonly string[]).includes(value);

/**
 * Scopes from a comma-separated list (`posts:read,media:write`), deduplicated in the canonical
 * order; every scope when the list is absent. Throws on an unknown scope or an empty list.
 */
export function parseScopes(text: string | undefined): Scope[] {
  if (text === undefined) return [...SCOPES];
  const asked = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  const unknown = asked.filter((scope) => !isScope(scope));
  if (unknown.length > 0)
    throw new Error(`Unknown scope ${unknown.join(", ")}; scopes are ${SCOPES.join(", ")}.`);
  if (asked.length === 0) throw new Error(`Name at least one scope of ${SCOPES.join(", ")}.`);
  return SCOPES.filter((scope) => asked.includes(scope));
}
