import { errorResponseSpec, toValidationIssues, z } from "@app/core";
import { GatewayError } from "../errors.ts";
import { InspectionSchema } from "./schemas.ts";

/** The longest `q` taken: enough for any sentence an agent would search with. */
export const MAX_QUERY_LENGTH = 200;

export const CatalogToolSchema = InspectionSchema.extend({
  name: z.string().openapi({ example: "Prediction-market event", description: "The tool's short name" }),
}).openapi("CatalogTool");

export const CatalogProviderSchema = z
  .object({
    id: z.string().openapi({ example: "markets", description: "The provider's fixed id, as `run` takes it" }),
    name: z.string().openapi({ example: "Prediction markets" }),
    upstreamKeyHeader: z.string().nullable().openapi({
      example: "x-api-key",
      description:
        "The upstream's header the caller's upstream key (sent to the gateway as X-Upstream-Key) goes in; null when the provider needs none",
    }),
    tools: z.array(CatalogToolSchema),
  })
  .openapi("Provider");

export const ProviderListSchema = z
  .object({ providers: z.array(CatalogProviderSchema) })
  .openapi("ProviderList");

export const ProvidersQuerySchema = z
  .object({
    q: z
      .string()
      .trim()
      .min(1)
      .max(MAX_QUERY_LENGTH)
      .optional()
      .openapi({
        example: "posts",
        description: `Only tools whose provider id or name, endpoint, name, description or parameter names hold every word of it, ignoring case (1 to ${MAX_QUERY_LENGTH} characters)`,
      }),
  })
  .strict();

export const ProviderParamsSchema = z
  .object({
    id: z.string().min(1).max(64).openapi({ example: "publisher", description: "The provider's fixed id" }),
  })
  .strict();

/** A catalog read takes no query parameter besides those it declares. */
export const NoQuerySchema = z.object({}).strict();

export const CATALOG_400 = errorResponseSpec(
  "INVALID_INPUT (with `issues`): a query parameter the route does not take, or one out of bounds",
);

type HookResult = { success: true } | { success: false; error: z.ZodError; target?: string };

const WHERE: Record<string, string> = { query: "query string", param: "path" };

/**
 * The catalog routes' validation hook: a query or path that does not parse is a 400
 * `INVALID_INPUT`, as the gateway's other routes answer; a parameter the route does not take is
 * named in its issue's path (zod names none for an unknown key).
 */
export function catalogRequestHook(result: HookResult): undefined {
  if (result.success) return undefined;
  const issues = result.error.issues.flatMap((issue) =>
    issue.code === "unrecognized_keys"
      ? issue.keys.map((key) => ({ path: key, message: "is not a parameter this route takes" }))
      : toValidationIssues(new z.ZodError([issue])),
  );
  const where = WHERE[result.target ?? ""] ?? "request";
  throw new GatewayError("INVALID_INPUT", `The ${where} is not valid.`, { issues });
}
