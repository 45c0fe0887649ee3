import type { Context } from "hono";
import type { ZodError } from "zod";
import { ApiError, errorResponse } from "./errors.ts";
import { hostileJsonIssue, MAX_JSON_DEPTH } from "./http/hostile-json.ts";

/** One failed check of a request, as rendered in a `VALIDATION_FAILED` body. */
export type ValidationIssue = { path: string; message: string };

/** Flattens zod issues to `{path, message}` with dotted paths (`items.0.name`). */
export function toValidationIssues(error: ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
}

const TARGET_NAMES: Record<string, string> = {
  json: "body",
  form: "form",
  query: "query string",
  param: "path",
  header: "headers",
  cookie: "cookies",
};

/** Builds the 400 `VALIDATION_FAILED` error for a zod failure. */
export function validationError(error: ZodError, target?: string): ApiError {
  const where = target ? ` in the ${TARGET_NAMES[target] ?? target}` : "";
  return new ApiError("VALIDATION_FAILED", `The request is not valid${where}.`, {
    issues: toValidationIssues(error),
  });
}

type HookResult =
  | { success: true; data?: unknown; target?: string }
  | { success: false; error: ZodError; target?: string };

/**
 * The `defaultHook` for `OpenAPIHono`: a failed zod check becomes a 400
 * `VALIDATION_FAILED` body listing each issue; so does a valid body that holds what no service
 * should be handed (a NUL or an unpaired surrogate in a string, nesting past
 * {@link MAX_JSON_DEPTH}: see {@link hostileJsonIssue}), before any route code sees it.
 */
export function validationHook(result: HookResult, c: Context): Response | undefined {
  if (!result.success) return errorResponse(c, validationError(result.error, result.target));
  if (result.target !== "json" && result.target !== "form") return undefined;
  const issue = hostileJsonIssue(result.data);
  if (!issue) return undefined;
  const where = TARGET_NAMES[result.target] ?? result.target;
  return errorResponse(
    c,
    new ApiError("VALIDATION_FAILED", `The request is not valid in the ${where}.`, { issues: [issue] }),
  );
}
