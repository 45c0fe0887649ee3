import { type ToolName, toolName } from "../domain/key-policy.ts";
import { parseUsd } from "../domain/money.ts";
import type { ProviderDeclaration } from "./types.ts";

/** Most tools one `GATEWAY_TOOL_PRICES` may price. */
const MAX_PRICES = 1_000;

/** A price as configured: a decimal USD string, at most 6 decimals, like the run envelope's amounts. */
const DECIMAL_USD = /^\d{1,10}(\.\d{1,6})?$/;

export type ToolPricesResult = { prices: Map<ToolName, bigint> } | { problems: string[] };

/**
 * Reads `GATEWAY_TOOL_PRICES`: a JSON object whose keys name declared tools as
 * `"provider endpoint METHOD"` and whose values are decimal USD strings (`{"markets /pm/event GET":
 * "0.01"}`), the price of one run of each. Strict, since it decides what runs cost: anything but
 * such an object, a key naming no declared tool, a number (JSON numbers are not exact decimals) or
 * an amount with more than 6 decimals is a problem that stops the start.
 */
export function parseToolPrices(
  text: string,
  declarations: readonly ProviderDeclaration[],
): ToolPricesResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problems: ['is not JSON: write an object such as {"markets /pm/event GET": "0.01"}'] };
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return { problems: ['must be a JSON object such as {"markets /pm/event GET": "0.01"}'] };
  }
  const declared = new Set(
    declarations.flatMap((provider) =>
      provider.tools.map((tool) => toolName({ provider: provider.id, ...tool })),
    ),
  );
  const entries = Object.entries(parsed);
  const problems: string[] = [];
  if (entries.length > MAX_PRICES) problems.push(`prices at most ${MAX_PRICES} tools`);
  const prices = new Map<ToolName, bigint>();
  for (const [name, value] of entries) {
    if (!declared.has(name)) {
      problems.push(
        `${JSON.stringify(name)} names no tool: name one as "provider endpoint METHOD", one of ${[...declared].join(", ")}`,
      );
      continue;
    }
    const micro = typeof value === "string" && DECIMAL_USD.test(value) ? parseUsd(value) : undefined;
    if (micro === undefined) {
      problems.push(
        `the price of ${JSON.stringify(name)} must be a decimal USD string with at most 6 decimals, like "0.01"`,
      );
      continue;
    }
    prices.set(name, micro);
  }
  return problems.length > 0 ? { problems } : { prices };
}
