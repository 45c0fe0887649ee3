import { toValidationIssues, type ValidationIssue, z } from "@app/core";
import type { RegisteredTool } from "../registry/types.ts";
import { renderPath } from "./path-template.ts";

/** What a run sends upstream, relative to the provider's base URL. */
export type PreparedCall = { path: string; query: URLSearchParams };

export type PreparedInput = { ok: true; call: PreparedCall } | { ok: false; issues: ValidationIssue[] };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/**
 * A tool's query or path parameters as the caller sent them: a JSON object, handed on as it is, for
 * the tool's own strict schema to check its names and values. Not a `z.record` (nor a spread),
 * which copies the object and skips an own `__proto__` key (`JSON.parse` makes one) without a
 * word: the tool would then run without it instead of refusing a name it does not take, as it
 * refuses `constructor`. Documented as the object it is (OpenAPI, the MCP tool's JSON Schema).
 */
const ParamsObjectSchema = z
  .unknown()
  .refine(isPlainObject, { message: "Invalid input: expected object" })
  .meta({ type: "object", propertyNames: { type: "string" }, additionalProperties: {} });

/** The run's `input`: both parts optional, nothing else allowed. */
export const RunInputSchema = z
  .object({
    queryParams: ParamsObjectSchema.optional(),
    pathParams: ParamsObjectSchema.optional(),
  })
  .strict();

export type RunInput = z.infer<typeof RunInputSchema>;

const prefixed = (prefix: string, issues: ValidationIssue[]) =>
  issues.map((issue) => ({ ...issue, path: issue.path ? `${prefix}.${issue.path}` : prefix }));

/** A validated query value as it goes on the wire. */
function queryValue(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  return typeof value === "string" ? value : String(value);
}

/**
 * Why a query value cannot go upstream: URLSearchParams would turn a lone surrogate into U+FFFD
 * without a word, and a NUL is text no upstream takes (PostgreSQL refuses it in any text value).
 */
function unsafeQueryReason(value: string): string | undefined {
  if (!value.isWellFormed()) return "must be well-formed text (no lone surrogates)";
  if (value.includes("\u0000")) return "must not contain NUL";
  return undefined;
}

/**
 * Checks a run's `input` against the tool's schemas and builds the upstream path and query:
 * unknown parameter names are refused, defaults applied, path parameters checked and encoded
 * ({@link renderPath}), query values with a lone surrogate or a NUL refused. Issues carry dotted paths from the run body (`input.queryParams.days`).
 */
export function prepareToolInput(tool: RegisteredTool, input: unknown): PreparedInput {
  const shape = RunInputSchema.safeParse(input ?? {});
  if (!shape.success) return { ok: false, issues: prefixed("input", toValidationIssues(shape.error)) };
  const query = tool.queryParams.safeParse(shape.data.queryParams ?? {});
  const path = tool.pathParams.safeParse(shape.data.pathParams ?? {});
  const issues = [
    ...(query.success ? [] : prefixed("input.queryParams", toValidationIssues(query.error))),
    ...(path.success ? [] : prefixed("input.pathParams", toValidationIssues(path.error))),
  ];
  if (!query.success || !path.success) return { ok: false, issues };
  const pathValues: Record<string, string> = {};
  for (const [name, value] of Object.entries(path.data)) {
    const text = queryValue(value);
    if (text !== undefined) pathValues[name] = text;
  }
  const rendered = renderPath(tool.endpoint, pathValues, "input.pathParams");
  if (!rendered.ok) return { ok: false, issues: rendered.issues };
  const search = new URLSearchParams();
  const queryIssues: ValidationIssue[] = [];
  for (const [name, value] of Object.entries(query.data)) {
    const text = queryValue(value);
    if (text === undefined) continue;
    const problem = unsafeQueryReason(text);
    if (problem) {
      queryIssues.push({ path: `input.queryParams.${name}`, message: problem });
      continue;
    }
    search.set(name, text);
  }
  if (queryIssues.length > 0) return { ok: false, issues: queryIssues };
  return { ok: true, call: { path: rendered.path, query: search } };
}

/**
 * The absolute upstream URL of a call: the provider's base URL (which may carry a path prefix)
 * joined with the rendered path and query. Throws if the URL parser would change the path (dot
 * segments) or the origin, which the path checks already rule out: a second line of defence.
 */
export function upstreamUrl(baseUrl: URL, call: PreparedCall): URL {
  const path = `${baseUrl.pathname.replace(/\/+$/, "")}${call.path}`;
  const url = new URL(baseUrl.origin);
  url.pathname = path;
  url.search = call.query.toString();
  if (url.origin !== baseUrl.origin || url.pathname !== path) {
    throw new Error("An upstream URL left its provider's base URL.");
  }
  return url;
}
