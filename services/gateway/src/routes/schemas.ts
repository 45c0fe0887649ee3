import { z } from "@app/core";
import { RunInputSchema } from "../domain/tool-input.ts";

export const UsdAmountSchema = z
  .object({
    amount: z.string().openapi({ example: "0", description: "Exact decimal USD" }),
    currency: z.literal("USD"),
  })
  .openapi("UsdAmount");

/** The tool a run or an inspect names. */
const toolFields = {
  provider: z.string().min(1).max(64).openapi({ example: "markets", description: "The provider's fixed id" }),
  endpoint: z
    .string()
    .min(1)
    .max(256)
    .openapi({ example: "/pm/event", description: "The tool's upstream path template" }),
  method: z.string().min(1).max(16).default("GET").openapi({ example: "GET" }),
};

export const RunBodySchema = z
  .object({
    ...toolFields,
    input: RunInputSchema.default({}).openapi({
      example: { queryParams: { ref: "fed-decision-in-december" } },
      description: "`{queryParams?, pathParams?}`, checked against the tool's schemas (see inspect)",
    }),
    upstreamKey: z.string().optional().openapi({
      description:
        "The caller's upstream key, for clients that cannot set the X-Upstream-Key header (the header is preferred)",
    }),
  })
  .strict()
  .openapi("RunRequest");

export const RunEnvelopeSchema = z
  .object({
    runId: z.string(),
    provider: z.string(),
    endpoint: z.string(),
    method: z.string(),
    upstream: z.object({
      status: z.number().int().openapi({ description: "The upstream's HTTP status (4xx and 5xx included)" }),
      retryAfter: z.string().optional().openapi({
        description:
          "The upstream's Retry-After, when it sent delta-seconds or an HTTP-date (anything else is dropped)",
      }),
    }),
    output: z.unknown().openapi({ description: "The upstream's JSON body (its text when not JSON)" }),
    cost: UsdAmountSchema,
    balance: UsdAmountSchema,
    durationMs: z.number().int(),
  })
  .openapi("RunEnvelope");

export const InspectBodySchema = z.object(toolFields).strict().openapi("InspectRequest");

export const InspectQuerySchema = z.object(toolFields);

export const InspectionSchema = z
  .object({
    provider: z.string(),
    endpoint: z.string(),
    method: z.string(),
    description: z.string(),
    input: z.object({
      queryParams: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema" }),
      pathParams: z.record(z.string(), z.unknown()).openapi({ description: "JSON Schema" }),
    }),
    price: UsdAmountSchema,
    upstreamKey: z.enum(["required", "none"]),
  })
  .openapi("ToolInspection");
