import { createRoute, jsonResponse } from "@app/core";
import { usageRange } from "../domain/usage-range.ts";
import { GatewayError } from "../errors.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { recordsWritten } from "../runner/records-written.ts";
import { usageGroups } from "../store/run-history.ts";
import { catalogRequestHook } from "./catalog-schemas.ts";
import { HISTORY_400, UsageQuerySchema, UsageSchema } from "./history-schemas.ts";
import { usageView } from "./history-views.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** GET /v1/usage: the account's runs and their cost over a period, per tool and per key. */
export function registerUsage(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/usage",
    operationId: "usage_get",
    tags: ["History"],
    summary: "Your usage over a period",
    description:
      "Runs that began in [`from`, `to`): totals, per tool (runs, cost, errors) and per key (runs, cost), costs in exact decimal USD as the ledger has them (charges less refunds). Default: the current UTC month; at most 366 days.",
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { query: UsageQuerySchema },
    responses: {
      200: jsonResponse(UsageSchema, "The period's usage"),
      400: HISTORY_400,
      401: COMMON_RESPONSES[401],
    },
  });
  app.openapi(
    route,
    async (c) => {
      const range = usageRange(c.req.valid("query"), deps.clock.now());
      if (!range.ok) {
        throw new GatewayError("INVALID_INPUT", "The query string is not valid.", {
          issues: [{ path: range.path, message: range.message }],
        });
      }
      const { from, to } = range.range;
      await recordsWritten(deps);
      const groups = await usageGroups(
        deps.db,
        c.var.caller.accountId,
        from,
        to,
        c.var.caller.access?.allow ?? null,
      );
      c.header("Cache-Control", "no-store");
      return c.json(usageView(range.range, groups), 200);
    },
    catalogRequestHook,
  );
}
