import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { marketsDemo } from "../src/demo.ts";
import { marketsApp } from "./harness.ts";

describe("service surface", () => {
  test("lists every operation in its OpenAPI document", async ({ db }) => {
    const res = await marketsApp(db).request("/openapi.json");
    expect(res.status).toBe(200);
    const document = await json(res);
    const operations = Object.values(
      document.paths as Record<string, Record<string, { operationId: string }>>,
    )
      .flatMap((methods) => Object.values(methods).map((operation) => operation.operationId))
      .sort();
    expect(operations).toEqual(
      [
        "healthz",
        "paper_account_create",
        "paper_account_get",
        "paper_market_resolve",
        "paper_order_create",
        "pm_book",
        "pm_event",
        "readyz",
      ].sort(),
    );
  });

  test("offers demo refs that each resolve to an event", async ({ db }) => {
    const app = marketsApp(db);
    const demo = marketsDemo();
    for (const ref of Object.values(demo.sampleRefs)) {
      expect((await app.request(`/pm/event?ref=${encodeURIComponent(ref)}`)).status, ref).toBe(200);
    }
    expect((await app.request(demo.firstRequest)).status).toBe(200);
  });

  test("answers 405 with Allow for a known path and a wrong method", async ({ db }) => {
    const res = await marketsApp(db).request("/pm/event?ref=x", { method: "DELETE" });
    expect(res.status).toBe(405);
  });
});
