import type { ValidationIssue } from "../validation.ts";

/** How deep a request body may nest (objects and arrays): far beyond any API's payload. */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function textProblem(text: string): string | undefined {
  if (LONE_SURROGATE.test(text)) return "must be well-formed text (no lone surrogates)";
  if (text.includes("\u0000")) return "must not contain NUL";
  return undefined;
}

/**
 * The first thing in a parsed JSON value no service should be handed: a string (or key) with a
 * NUL, which PostgreSQL's text and jsonb refuse, or an unpaired surrogate, which is not Unicode
 * and would be stored as U+FFFD; or nesting deeper than `maxDepth`, which recursive code (canonical
 * JSON, the MCP SDK's serialiser) overflows on. Walked without recursion, so any depth is safe.
 */
export function hostileJsonIssue(value: unknown, maxDepth = MAX_JSON_DEPTH): ValidationIssue | undefined {
  const stack: Array<{ value: unknown; path: string[]; depth: number }> = [{ value, path: [], depth: 0 }];
  while (stack.length > 0) {
    const { value: current, path, depth } = stack.pop() as { value: unknown; path: string[]; depth: number };
    if (typeof current === "string") {
      const problem = textProblem(current);
      if (problem) return { path: path.join("."), message: problem };
      continue;
    }
    if (current === null || typeof current !== "object") continue;
    if (depth >= maxDepth) {
      return { path: path.join("."), message: `nests deeper than ${maxDepth} levels` };
    }
    const entries = Array.isArray(current)
      ? current.map((item, index) => [String(index), item] as const)
      : Object.entries(current);
    for (const [key, item] of entries) {
      const keyProblem = textProblem(key);
      if (keyProblem) return { path: [...path, key].join("."), message: `has a key that ${keyProblem}` };
      stack.push({ value: item, path: [...path, key], depth: depth + 1 });
    }
  }
  return undefined;
}
