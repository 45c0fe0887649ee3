import { errorResponseSpec, z } from "@app/core";
import {
  decodeLedgerCursor,
  decodeRunCursor,
  type LedgerCursor,
  type RunCursor,
} from "../domain/page-cursor.ts";
import { RUN_STATUS_NAMES, RUN_STATUSES } from "../domain/run-status.ts";
import type { Caller } from "../store/accounts.ts";
import { UsdAmountSchema } from "./schemas.ts";

/** Page sizes of the history's lists. */
export const HISTORY_PAGE = { min: 1, max: 100, default: 20 } as const;

/**
 * The page of the caller's account's list that a history query asks for: `limit` items (the
 * default when the query names none) after its decoded `cursor`, of the tools its key may see.
 */
export function pageAsked<Cursor>(
  caller: Caller,
  query: { limit?: number; cursor?: Cursor },
): { accountId: string; limit: number; after?: Cursor; allow: readonly string[] | null } {
  return {
    accountId: caller.accountId,
    limit: query.limit ?? HISTORY_PAGE.default,
    after: query.cursor,
    allow: caller.access?.allow ?? null,
  };
}

const limitParam = z
  .string()
  .regex(/^\d{1,6}$/, "must be a whole number")
  .transform(Number)
  .pipe(z.number().int().min(HISTORY_PAGE.min).max(HISTORY_PAGE.max))
  .optional()
  .openapi({
    type: "integer",
    minimum: HISTORY_PAGE.min,
    maximum: HISTORY_PAGE.max,
    default: HISTORY_PAGE.default,
    description: "Items on a page",
  });

/** A `cursor` parameter: decoded here, so a cursor this service never issued is a 400 of the query. */
function cursorParam<T>(decode: (text: string) => T | undefined) {
  return z
    .string()
    .min(1)
    .max(512)
    .transform((text, context) => {
      const position = decode(text);
      if (!position) context.addIssue({ code: "custom", message: "is not a cursor this list issued" });
      return position ?? z.NEVER;
    })
    .optional()
    .openapi({ type: "string", description: "The `nextCursor` of the previous page" });
}

const statusTable = RUN_STATUS_NAMES.map((name) => `\`${name}\`: ${RUN_STATUSES[name].meaning}`).join("; ");

export const RunsQuerySchema = z
  .object({
    cursor: cursorParam<RunCursor>(decodeRunCursor),
    limit: limitParam,
    provider: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,64}$/, "must be a provider id")
      .optional()
      .openapi({ example: "markets", description: "Only runs of this provider's tools" }),
    status: z
      .enum(RUN_STATUS_NAMES)
      .optional()
      .openapi({ description: `Only runs with this status. ${statusTable}` }),
  })
  .strict();

export const LedgerQuerySchema = z
  .object({ cursor: cursorParam<LedgerCursor>(decodeLedgerCursor), limit: limitParam })
  .strict();

export const UsageQuerySchema = z
  .object({
    from: z.string().max(64).optional().openapi({
      example: "2026-05-01",
      description:
        "Start (inclusive): an ISO 8601 date (midnight UTC) or date-time with a zone; default the start of the current UTC month",
    }),
    to: z.string().max(64).optional().openapi({
      example: "2026-05-31",
      description:
        "End (exclusive; a date alone means the end of that day): default the start of the next UTC month; at most 366 days after `from`",
    }),
  })
  .strict();

export const RunParamsSchema = z
  .object({
    id: z.string().min(1).max(512).openapi({ example: "run_3kTq…", description: "The run's id (`runId`)" }),
  })
  .strict();

const KeyRefSchema = z
  .object({
    id: z.string().openapi({ description: "The gateway key's id" }),
    prefix: z.string().openapi({ description: "The key's first characters (never the key)" }),
  })
  .openapi("GatewayKeyRef");

const timestamp = (description: string) =>
  z.string().openapi({ example: "2026-05-01T12:00:00.000Z", description });

export const RunSchema = z
  .object({
    id: z.string().openapi({ description: "The run's id, as its envelope's `runId`" }),
    provider: z.string(),
    endpoint: z.string(),
    method: z.string(),
    key: KeyRefSchema,
    status: z.enum(RUN_STATUS_NAMES).openapi({ description: statusTable }),
    upstream: z.object({
      status: z
        .number()
        .int()
        .nullable()
        .openapi({ description: "The upstream's HTTP status; null when it did not answer" }),
    }),
    price: UsdAmountSchema.openapi({
      description: "The tool's price, charged at the start (0 for a free tool)",
    }),
    cost: UsdAmountSchema.openapi({
      description: "What the run cost: its price less any refund, as its envelope showed",
    }),
    createdAt: timestamp("When the run began"),
    finishedAt: timestamp("When it ended").nullable(),
    durationMs: z.number().int().nullable().openapi({ description: "The upstream call's duration" }),
    idempotencyKey: z.string().nullable().openapi({ description: "The Idempotency-Key it was sent with" }),
    requestId: z.string().nullable().openapi({ description: "The x-request-id of the request that ran it" }),
    ledger: z
      .object({
        charge: z.string().nullable().openapi({ description: "The id of its `run` ledger row" }),
        refund: z
          .string()
          .nullable()
          .openapi({ description: "The id of its `refund` ledger row, if refunded" }),
      })
      .openapi({ description: "Its rows in GET /v1/ledger" }),
  })
  .openapi("RunRecord");

export const RunDetailSchema = RunSchema.extend({
  output: z.unknown().optional().openapi({
    description:
      "The run's output as its envelope showed it (the upstream key scrubbed), present only when the account kept outputs when it ran",
  }),
}).openapi("RunDetail");

export const RunListSchema = z
  .object({
    runs: z.array(RunSchema),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "The next page's cursor; null on the last page" }),
  })
  .openapi("RunList");

const countsFields = {
  runs: z.number().int(),
  cost: UsdAmountSchema.openapi({
    description: "What those runs cost (charges less refunds, as the ledger has them)",
  }),
};

export const UsageSchema = z
  .object({
    from: timestamp("Start of the period (inclusive)"),
    to: timestamp("End of the period (exclusive)"),
    total: z.object({ ...countsFields, errors: z.number().int() }),
    tools: z.array(
      z.object({
        provider: z.string(),
        endpoint: z.string(),
        method: z.string(),
        ...countsFields,
        errors: z
          .number()
          .int()
          .openapi({ description: "Runs that ended without an upstream answer below 400" }),
      }),
    ),
    keys: z.array(z.object({ key: KeyRefSchema, ...countsFields })),
  })
  .openapi("Usage");

export const LedgerEntrySchema = z
  .object({
    id: z.string().openapi({ example: "42", description: "The row's id (an integer, as a string)" }),
    kind: z.enum(["credit", "run", "refund"]),
    amount: UsdAmountSchema.openapi({
      description: "Signed: a credit or refund is positive, a run's charge negative",
    }),
    balanceAfter: UsdAmountSchema,
    createdAt: timestamp("When it was written"),
    note: z.string().nullable(),
    run: z
      .object({
        id: z.string(),
        provider: z.string(),
        endpoint: z.string(),
        method: z.string(),
        idempotencyKey: z.string().nullable(),
        requestId: z.string().nullable(),
        price: UsdAmountSchema,
      })
      .nullable()
      .openapi({ description: "The run a `run` or `refund` row is for" }),
    settlement: z
      .object({
        protocol: z.string().openapi({ example: "x402" }),
        reference: z.string().nullable(),
        transactionHash: z.string().nullable(),
      })
      .nullable()
      .openapi({ description: "The payment a bought credit was settled with; null otherwise" }),
  })
  .openapi("LedgerEntry");

export const LedgerPageSchema = z
  .object({
    entries: z.array(LedgerEntrySchema),
    nextCursor: z
      .string()
      .nullable()
      .openapi({ description: "The next page's cursor; null on the last page" }),
  })
  .openapi("LedgerPage");

export const HISTORY_400 = errorResponseSpec(
  "INVALID_INPUT (with `issues`): a query parameter the route does not take, one out of bounds, or a cursor it did not issue",
);
