import { jsonToLex } from "@atproto/lexicon";
import { PlatformFailure } from "../kit/failure.ts";

/**
 * The deepest nesting of arrays and objects a body may have. A PDS has no stated limit: its XRPC
 * server converts the JSON body to the data model with `jsonToLex`, which recurses, and turns any
 * error it throws into 400 `InvalidRequest` (a stack overflow, a few thousand levels down). The
 * twin refuses well before that depth, with the same error, so that no later step (the record's
 * CID, its JSON answer) can overflow either. Real records nest a dozen levels.
 */
export const MAX_NESTING_DEPTH = 1000;

const invalid = (message: string) => new PlatformFailure(400, "InvalidRequest", message);

/** Whether `value` nests arrays and objects deeper than `max` levels (walked without recursion). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (typeof item !== "object" || item === null) continue;
    if (depth + 1 > max) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/**
 * A JSON body (or part of one) in `@atproto/lexicon` form, refused as a PDS refuses what
 * `jsonToLex` cannot convert: 400 `InvalidRequest` with its message (`Invalid key: __proto__`, a
 * `$link` that is no CID…), and past {@link MAX_NESTING_DEPTH} levels.
 */
export function lexFromJson(value: unknown): unknown {
  if (nestsDeeperThan(value, MAX_NESTING_DEPTH)) {
    throw invalid(`Input is nested more than ${MAX_NESTING_DEPTH} levels deep`);
  }
  try {
    return jsonToLex(value);
  } catch (error) {
    throw invalid(error instanceof Error ? error.message : String(error));
  }
}
