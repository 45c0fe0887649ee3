import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { RUN_STATUS_NAMES } from "../../src/domain/run-status.ts";
import { gatewayHarness } from "../support/harness.ts";

describe("GET /openapi.json", () => {
  test("documents the history routes, their parameters, statuses and errors, with the gateway key", async ({
    db,
  }) => {
    const { app, close } = gatewayHarness(db);
    const document = await json(await app.request("/openapi.json"));
    const operations = {
      "/v1/runs": ["runs_list", ["200", "400", "401"], ["cursor", "limit", "provider", "status"]],
      "/v1/runs/{id}": ["run_get", ["200", "400", "401", "404"], ["id"]],
      "/v1/usage": ["usage_get", ["200", "400", "401"], ["from", "to"]],
      "/v1/ledger": ["ledger_list", ["200", "400", "401"], ["cursor", "limit"]],
    } as const;
    for (const [path, [operationId, statuses, parameters]] of Object.entries(operations)) {
      const operation = document.paths[path].get;
      expect(operation.operationId).toBe(operationId);
      expect(operation.security).toEqual([{ gatewayKey: [] }]);
      expect(Object.keys(operation.responses).sort()).toEqual([...statuses].sort());
      expect(operation.parameters.map((p: { name: string }) => p.name).sort()).toEqual(
        [...parameters].sort(),
      );
    }
    const status = document.paths["/v1/runs"].get.parameters.find(
      (p: { name: string }) => p.name === "status",
    );
    expect(status.schema.enum).toEqual(RUN_STATUS_NAMES);
    for (const name of ["RunRecord", "RunDetail", "RunList", "Usage", "LedgerEntry", "LedgerPage"]) {
      expect(document.components.schemas[name], name).toBeDefined();
    }
    expect(JSON.stringify(document.components.schemas.RunDetail)).toContain('"output"');
    expect(document.components.schemas.RunRecord.properties).not.toHaveProperty("output");
    await close();
  });
});
