import { createRoute, jsonResponse } from "@app/core";
import { encodeRunCursor } from "../domain/page-cursor.ts";
import { statusFilter } from "../domain/run-status.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { recordsWritten } from "../runner/records-written.ts";
import { listRuns } from "../store/run-history.ts";
import { catalogRequestHook } from "./catalog-schemas.ts";
import { HISTORY_400, HISTORY_PAGE, pageAsked, RunListSchema, RunsQuerySchema } from "./history-schemas.ts";
import { runView } from "./history-views.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** GET /v1/runs: the account's runs, newest first, a page at a time. */
export function registerRunsList(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/runs",
    operationId: "runs_list",
    tags: ["History"],
    summary: "List your runs",
    description: `The account's runs (every key's), newest first, ${HISTORY_PAGE.default} a page by default (at most ${HISTORY_PAGE.max}); follow \`nextCursor\`. Optionally only one provider's, or one status's. Never an input, an output or an upstream key.`,
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { query: RunsQuerySchema },
    responses: {
      200: jsonResponse(RunListSchema, "A page of runs, newest first"),
      400: HISTORY_400,
      401: COMMON_RESPONSES[401],
    },
  });
  app.openapi(
    route,
    async (c) => {
      await recordsWritten(deps);
      const query = c.req.valid("query");
      const page = await listRuns(deps.db, {
        ...pageAsked(c.var.caller, query),
        provider: query.provider,
        status: query.status && statusFilter(query.status),
      });
      c.header("Cache-Control", "no-store");
      return c.json(
        { runs: page.runs.map(runView), nextCursor: page.next ? encodeRunCursor(page.next) : null },
        200,
      );
    },
    catalogRequestHook,
  );
}
