import { z } from "@app/core";
import type { ProviderDeclaration } from "./types.ts";

/**
 * The gateway's providers and their tools, declared once. The README's tools table, `inspect`, the
 * MCP tool descriptions and the run's validation all derive from this list.
 */

/** A whole number, also accepted as a string of digits (agents often send "7"). */
function wholeNumber(min: number, max: number) {
  return z.preprocess(
    (value) => (typeof value === "string" && /^\d{1,9}$/.test(value) ? Number(value) : value),
    z.int().min(min).max(max),
  );
}

const noParams = z.object({}).strict();

/** Post statuses of the publishing service (spec 001). */
export const POST_STATUSES = ["draft", "scheduled", "publishing", "published", "failed", "partial"] as const;

/** Bounds and default of the list-posts page size (DECISIONS: 1..100, default 20). */
export const POSTS_LIMIT = { min: 1, max: 100, default: 20 } as const;

export const SHOP: ProviderDeclaration = {
  id: "shop",
  name: "Shop",
  upstreamKeyHeader: "x-shop-key",
  tools: [
    {
      name: "Shop availability",
      endpoint: "/api/shops/agent-availability",
      method: "GET",
      description:
        "The shop of the shop key, its services and, with `service`, that service's open slots. `service` is an id from a first call without it; `from` is a day in the shop's time zone (default today there).",
      queryParams: z
        .object({
          service: z
            .string()
            .min(1)
            .max(64)
            .optional()
            .describe("A service id from a call without `service`"),
          from: z
            .string()
            .regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD")
            .optional()
            .describe("First day, YYYY-MM-DD in the shop's time zone; default today there"),
          days: wholeNumber(1, 31).optional().describe("How many days from `from`: 1 to 31, default 7"),
          partySize: wholeNumber(1, 100)
            .optional()
            .describe("Places needed in one slot: 1 to the service's capacity, default 1"),
        })
        .strict(),
      pathParams: noParams,
      priceMicro: 0n,
    },
  ],
};

export const PUBLISHER: ProviderDeclaration = {
  id: "publisher",
  name: "Publisher",
  upstreamKeyHeader: "x-api-key",
  tools: [
    {
      name: "List posts",
      endpoint: "/api/v1/posts",
      method: "GET",
      description:
        "Your posts, newest first, with status, platforms, scheduled time and media. Page by passing the `nextCursor` of the previous page as `cursor`.",
      queryParams: z
        .object({
          status: z.enum(POST_STATUSES).optional().describe("Only posts with this status"),
          limit: wholeNumber(POSTS_LIMIT.min, POSTS_LIMIT.max)
            .default(POSTS_LIMIT.default)
            .describe("Page size: 1 to 100, default 20"),
          cursor: z.string().min(1).max(512).optional().describe("The `nextCursor` of the previous page"),
        })
        .strict(),
      pathParams: noParams,
      priceMicro: 0n,
    },
    {
      name: "Get post",
      endpoint: "/api/v1/posts/{id}",
      method: "GET",
      description: "One post: its status and the outcome on each platform.",
      queryParams: noParams,
      pathParams: z.object({ id: z.string().min(1).max(128).describe("The post's id") }).strict(),
      priceMicro: 0n,
    },
    {
      name: "List connections",
      endpoint: "/api/v1/connections",
      method: "GET",
      description: "Your connected accounts, with their ids, platforms and account names.",
      queryParams: noParams,
      pathParams: noParams,
      priceMicro: 0n,
    },
  ],
};

export const MARKETS: ProviderDeclaration = {
  id: "markets",
  name: "Prediction markets",
  upstreamKeyHeader: null,
  tools: [
    {
      name: "Prediction-market event",
      endpoint: "/pm/event",
      method: "GET",
      description:
        "The full event a ref names: every market, per outcome the implied probability, volume, liquidity and open interest. `ref` is a site URL, an event or market slug, a numeric id, a condition id or a token id.",
      queryParams: z
        .object({
          ref: z
            .string()
            .min(1)
            .max(512)
            .describe(
              "A polymarket.com URL, an event or market slug, a numeric id, a condition id or a token id",
            ),
        })
        .strict(),
      pathParams: noParams,
      priceMicro: 0n,
    },
  ],
};

/** Every provider of the gateway, in the order the README lists them. */
export const PROVIDERS: readonly ProviderDeclaration[] = [SHOP, PUBLISHER, MARKETS];
