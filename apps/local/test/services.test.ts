import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError } from "@app/core";
import { migrateService } from "@app/runtime";
import { json, silentLogger, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { platformServices } from "../src/services.ts";

describe.each(platformServices.map((definition) => [definition.name, definition] as const))(
  "%s service",
  (name, definition) => {
    /** Defaults, but every port free and data in a folder of this test's own. */
    const config = definition.loadConfig({
      DATA_DIR: mkdtempSync(join(tmpdir(), `${name}-service-`)),
      FORTUNE_CHAIN_PORT: "0",
      GATEWAY_CHAIN_PORT: "0",
      SANDBOX_PLC_PORT: "0",
      SANDBOX_PDS2_PORT: "0",
      PUBLISHER_TOKEN_SECRET: "a-test-token-secret-of-at-least-32-chars",
    });

    test("answers health, readiness, OpenAPI and docs", async ({ db }) => {
      await migrateService(definition, db);
      const { app, stop } = await definition.build({ config, db, logger: silentLogger() });
      try {
        expect((await app.request("/healthz")).status).toBe(200);
        const ready = await app.request("/readyz");
        expect(ready.status).toBe(200);
        expect(await json(ready)).toEqual({ status: "ready" });
        const doc = await json(await app.request("/openapi.json"));
        expect(doc.info.title).toBe(definition.title);
        expect(doc.paths["/healthz"].get.operationId).toBe("healthz");
        const docs = await app.request("/docs");
        expect(docs.status).toBe(200);
        expect(await docs.text()).toContain("docs/assets/swagger-ui-bundle.js");
        const unknown = await app.request("/no/such/route");
        expect(unknown.status).toBe(404);
        expect((await json(unknown)).error).toBe("NOT_FOUND");
      } finally {
        await stop?.();
      }
    });

    test("fails fast on a bad or unknown setting, naming it", () => {
      const prefix = name.toUpperCase();
      expect(() => definition.loadConfig({ [`${prefix}_PORT`]: "not-a-port" })).toThrow(ConfigError);
      expect(() => definition.loadConfig({ [`${prefix}_PORT`]: "not-a-port" })).toThrow(`${prefix}_PORT`);
      expect(() => definition.loadConfig({ [`${prefix}_PROT`]: "1" })).toThrow(
        `${prefix}_PROT: unknown setting`,
      );
    });
  },
);
