import type { z } from "@app/core";

/** The fixed identifiers of the gateway's providers. */
export type ProviderId = string;

/** The only method the gateway runs: every tool here is a read-only GET. */
export type ToolMethod = "GET";

/** A zod object schema of a tool's query or path parameters (strict: unknown names are refused). */
export type ParamsSchema = z.ZodType<Record<string, unknown>>;

/** A tool as declared: what it is, how it is called, what it costs. */
export type ToolDeclaration = {
  /** Short human name, for the README and descriptions. */
  name: string;
  /** The upstream path template, which is also the `endpoint` a caller names (`/api/v1/posts/{id}`). */
  endpoint: string;
  method: ToolMethod;
  description: string;
  queryParams: ParamsSchema;
  pathParams: ParamsSchema;
  /** Price of one run in micro-USD (0 for the spec's tools). */
  priceMicro: bigint;
};

/** A provider as declared: its fixed id, how its key is sent, and its tools. */
export type ProviderDeclaration = {
  id: ProviderId;
  name: string;
  /** The upstream's own header for the caller's upstream key, or null when it needs none. */
  upstreamKeyHeader: string | null;
  tools: ToolDeclaration[];
};

/** A provider with the base URL this deployment reaches it at. */
export type Provider = ProviderDeclaration & { baseUrl: URL };

/** A tool ready to run: its declaration and its provider. */
export type RegisteredTool = ToolDeclaration & { provider: Provider };
