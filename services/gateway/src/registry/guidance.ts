import { RUN_STATUS_NAMES } from "../domain/run-status.ts";
import type { JsonSchema } from "../domain/tool-schema.ts";
import { HISTORY_PAGE } from "../routes/history-schemas.ts";
import { SELF_SERVE_STEPS } from "../self-serve/guidance.ts";
import { type CatalogProvider, type CatalogTool, catalogOf } from "./catalog.ts";
import type { ToolRegistry } from "./registry.ts";

/** What the gateway is and how it is authenticated: the first lines, the same for every deployment. */
const ABOUT = [
  "This tool gateway runs registered read-only upstream tools on your behalf, over HTTP and MCP, and answers their result in a run envelope.",
  "Authenticate every call but this file with your gateway key: `Authorization: Bearer gwk_…` (401 UNAUTHORIZED without a valid one).",
];

/** How the gateway is used once you have a key, before the tools; the same for every deployment. */
const CALLS = [
  "A tool whose provider needs your own upstream key takes it in the `X-Upstream-Key` header (or the run body's `upstreamKey`); the gateway sends it only to that tool's upstream, for that one call, and never stores it.",
  "GET /v1/providers lists the providers and their tools: endpoint, method, description, input JSON Schema, price, upstream key header. GET /v1/providers?q=<text> keeps the tools whose text holds every word; GET /v1/providers/{id} is one provider.",
  "GET /v1/inspect?provider=&endpoint=&method= (or POST /v1/inspect with {provider, endpoint, method?}) describes one tool.",
  "POST /v1/run with {provider, endpoint, method, input: {queryParams?, pathParams?}} runs a tool: 200 with {runId, upstream: {status}, output, cost, balance, durationMs} whenever the upstream answered, whatever its status; gateway failures are 4xx/5xx {error, message}. Send Idempotency-Key to retry safely.",
  "MCP: POST /mcp (Streamable HTTP, stateless) with the same key, tools `inspect` (with a provider alone: its tools) and `run` (an `idempotencyKey` argument works as Idempotency-Key).",
  `Your account's history, with the same key: GET /v1/runs (your runs, newest first; filter with \`provider\`, or \`status\`: ${RUN_STATUS_NAMES.join(", ")}), GET /v1/runs/{id} (one run, with its output when your account keeps outputs), GET /v1/usage?from=&to= (runs, cost and errors per tool and per key; this UTC month by default), GET /v1/ledger (every credit, charge and refund, with the balance it left). Lists are ${HISTORY_PAGE.default} a page by default, \`limit\` at most ${HISTORY_PAGE.max}; send \`nextCursor\` back as \`cursor\` for the next page.`,
];

/** How a caller without a key gets one: by itself from its wallet, or from the operator. */
function keyGuidance(selfServe: boolean): string[] {
  return selfServe
    ? SELF_SERVE_STEPS
    : [
        "This gateway runs without payment rails, so without self-serve accounts (POST /v1/accounts, /v1/keys and /v1/credits answer 503 NOT_CONFIGURED): its operator issues keys and credit.",
      ];
}

/** A parameter schema's names, the required ones marked. */
function parameterNames(schema: JsonSchema): string[] {
  const required = new Set((schema.required ?? []) as string[]);
  return Object.keys((schema.properties ?? {}) as Record<string, unknown>).map((name) =>
    required.has(name) ? `${name} (required)` : name,
  );
}

/** One tool in one line: how to name it, what it costs, what it takes, what it does. */
function toolLine(provider: CatalogProvider, tool: CatalogTool): string {
  const query = parameterNames(tool.input.queryParams);
  const path = parameterNames(tool.input.pathParams);
  const key = provider.upstreamKeyHeader
    ? `needs your upstream key in X-Upstream-Key (the gateway sends it as ${provider.upstreamKeyHeader})`
    : "needs no upstream key";
  return [
    `Tool ${tool.name}: provider \`${provider.id}\`, ${tool.method} ${tool.endpoint}, $${tool.price.amount} a run;`,
    `query ${query.length > 0 ? query.join(", ") : "none"}; path ${path.length > 0 ? path.join(", ") : "none"};`,
    `${key}. ${tool.description}`,
  ].join(" ");
}

/**
 * Plain guidance for agents: what the gateway is, how to get a key (from the wallet, when it has
 * payment rails: `selfServe`) and call it, and every registered tool with its price.
 */
export function gatewayGuidance(registry: ToolRegistry, selfServe: boolean): string[] {
  const tools = catalogOf(registry).flatMap((provider) =>
    provider.tools.map((tool) => toolLine(provider, tool)),
  );
  return [...ABOUT, ...keyGuidance(selfServe), ...CALLS, ...tools];
}

/** `/llms.txt`: the guidance as a Markdown list under a title, as the platform's services serve it. */
export function llmsTxt(registry: ToolRegistry, selfServe: boolean): string {
  return `# Tool Gateway\n\n${gatewayGuidance(registry, selfServe)
    .map((line) => `- ${line}`)
    .join("\n")}\n`;
}
