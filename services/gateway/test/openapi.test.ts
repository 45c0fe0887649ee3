import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { gatewayHarness } from "./support/harness.ts";

describe("GET /openapi.json", () => {
  test("documents run and inspect with the gateway key scheme and every gateway error status", async ({
    db,
  }) => {
    const { app } = gatewayHarness(db);
    const document = await json(await app.request("/openapi.json"));
    expect(document.paths["/v1/run"].post.operationId).toBe("run");
    expect(Object.keys(document.paths["/v1/run"].post.responses).sort()).toEqual(
      ["200", "400", "401", "402", "404", "409", "422", "429", "502", "504"].sort(),
    );
    expect(document.paths["/v1/inspect"].post.operationId).toBe("inspect");
    expect(document.paths["/v1/inspect"].get.operationId).toBe("inspect_get");
    expect(document.components.securitySchemes.gatewayKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(document.components.schemas.RunEnvelope.required).toContain("upstream");
  });
});
