import { createRoute, errorResponseSpec, jsonResponse, jsonTextOf, type z } from "@app/core";
import { GatewayError } from "../errors.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { recordsWritten } from "../runner/records-written.ts";
import { findRun } from "../store/run-history.ts";
import { catalogRequestHook, NoQuerySchema } from "./catalog-schemas.ts";
import { HISTORY_400, RunDetailSchema, RunParamsSchema } from "./history-schemas.ts";
import { runDetailJson } from "./history-views.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** What a run id looks like (`run_` + base64url): anything else names no run, without a lookup. */
const RUN_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** GET /v1/runs/{id}: one of the account's runs, with its output when the account keeps outputs. */
export function registerRunGet(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/runs/{id}",
    operationId: "run_get",
    tags: ["History"],
    summary: "Get one of your runs",
    description:
      "One run of the account, as the list shows it, plus its `output` when the account kept outputs when it ran (`keepRunOutput`). Another account's run is as unknown as one that never was.",
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { params: RunParamsSchema, query: NoQuerySchema },
    responses: {
      200: jsonResponse(RunDetailSchema, "The run"),
      400: HISTORY_400,
      401: COMMON_RESPONSES[401],
      404: errorResponseSpec("The account has no run with this id (RUN_NOT_FOUND)"),
    },
  });
  app.openapi(
    route,
    async (c) => {
      const { id } = c.req.valid("param");
      await recordsWritten(deps);
      const run = RUN_ID.test(id)
        ? await findRun(deps.db, c.var.caller.accountId, id, c.var.caller.access?.allow ?? null)
        : undefined;
      if (!run) throw new GatewayError("RUN_NOT_FOUND", "Your account has no run with this id.");
      // The output is the JSON text the run answered, spliced in as it was, not serialised again.
      return jsonTextOf<z.infer<typeof RunDetailSchema>>(
        c.body(runDetailJson(run), 200, { "Content-Type": "application/json", "Cache-Control": "no-store" }),
      );
    },
    catalogRequestHook,
  );
}
