import { createRoute, jsonResponse } from "@app/core";
import { encodeLedgerCursor } from "../domain/page-cursor.ts";
import type { GatewayDeps } from "../runner/deps.ts";
import { recordsWritten } from "../runner/records-written.ts";
import { listLedger } from "../store/run-history.ts";
import { catalogRequestHook } from "./catalog-schemas.ts";
import {
  HISTORY_400,
  HISTORY_PAGE,
  LedgerPageSchema,
  LedgerQuerySchema,
  pageAsked,
} from "./history-schemas.ts";
import { ledgerEntryView } from "./history-views.ts";
import { COMMON_RESPONSES, GATEWAY_KEY_SECURITY, type GatewayApp, gatewayKeyGuard } from "./shared.ts";

/** GET /v1/ledger: every row of the account's ledger, newest first, with the run or payment behind it. */
export function registerLedgerList(app: GatewayApp, deps: GatewayDeps): void {
  const route = createRoute({
    method: "get",
    path: "/v1/ledger",
    operationId: "ledger_list",
    tags: ["History"],
    summary: "Your ledger",
    description: `Every money movement of the account, newest first (${HISTORY_PAGE.default} a page by default, at most ${HISTORY_PAGE.max}; follow \`nextCursor\`): credits, run charges (0 for a free tool) and refunds, each with the balance it left, the run it charged or refunded (its tool, request and price) and the settlement of a bought credit.`,
    security: GATEWAY_KEY_SECURITY,
    middleware: gatewayKeyGuard(deps),
    request: { query: LedgerQuerySchema },
    responses: {
      200: jsonResponse(LedgerPageSchema, "A page of ledger rows, newest first"),
      400: HISTORY_400,
      401: COMMON_RESPONSES[401],
    },
  });
  app.openapi(
    route,
    async (c) => {
      await recordsWritten(deps);
      const page = await listLedger(deps.db, pageAsked(c.var.caller, c.req.valid("query")));
      c.header("Cache-Control", "no-store");
      return c.json(
        {
          entries: page.entries.map(ledgerEntryView),
          nextCursor: page.next ? encodeLedgerCursor(page.next) : null,
        },
        200,
      );
    },
    catalogRequestHook,
  );
}
