import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig, settings, z } from "../src/index.ts";

const schema = z.object({
  EXAMPLE_PORT: settings.port(3000),
  EXAMPLE_MODE: z.enum(["local", "hosted"]).default("local"),
  DATABASE_URL: settings.databaseUrl(),
});

describe("loadConfig", () => {
  it("applies defaults and coerces values", () => {
    expect(loadConfig(schema, { EXAMPLE_PORT: "4000" }, { prefixes: ["EXAMPLE_"] })).toEqual({
      EXAMPLE_PORT: 4000,
      EXAMPLE_MODE: "local",
    });
  });

  it("fails fast naming each invalid variable, without echoing values", () => {
    const attempt = () =>
      loadConfig(
        schema,
        { EXAMPLE_PORT: "eighty", DATABASE_URL: "mysql://secret@db" },
        { prefixes: ["EXAMPLE_"] },
      );
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (error) {
      const message = (error as Error).message;
      expect(message).toContain("EXAMPLE_PORT");
      expect(message).toContain("DATABASE_URL");
      expect(message).not.toContain("secret@db");
    }
  });

  it("refuses an unknown setting that carries the service prefix", () => {
    expect(() => loadConfig(schema, { EXAMPLE_PROT: "1" }, { prefixes: ["EXAMPLE_"] })).toThrow(
      /EXAMPLE_PROT: unknown setting/,
    );
  });

  it("ignores unrelated variables and treats empty values as unset", () => {
    expect(
      loadConfig(schema, { PATH: "/bin", EXAMPLE_MODE: "" }, { prefixes: ["EXAMPLE_"] }).EXAMPLE_MODE,
    ).toBe("local");
  });
});

describe("settings shared by the services' schemas", () => {
  const shared = z.object({
    EXAMPLE_LIMIT: settings.positiveInt(120, 1000),
    EXAMPLE_URL: settings.httpUrl().optional(),
    EXAMPLE_BASE: settings.httpBaseUrl().optional(),
  });
  const load = (env: Record<string, string>) => loadConfig(shared, env, { prefixes: ["EXAMPLE_"] });

  it("positiveInt takes a whole number from 1 to its maximum, its fallback when unset", () => {
    expect(load({}).EXAMPLE_LIMIT).toBe(120);
    expect(load({ EXAMPLE_LIMIT: "1000" }).EXAMPLE_LIMIT).toBe(1000);
    for (const bad of ["0", "1001", "1.5", "ten"]) {
      expect(() => load({ EXAMPLE_LIMIT: bad }), bad).toThrow(/EXAMPLE_LIMIT/);
    }
  });

  it("httpUrl takes http and https URLs only", () => {
    expect(load({ EXAMPLE_URL: "https://example.com/a?b=1" }).EXAMPLE_URL).toBe("https://example.com/a?b=1");
    for (const bad of ["ftp://example.com", "example.com", "javascript:alert(1)"]) {
      expect(() => load({ EXAMPLE_URL: bad }), bad).toThrow(
        /EXAMPLE_URL: must be an http:\/\/ or https:\/\/ URL/,
      );
    }
  });

  it("httpBaseUrl keeps a path prefix and refuses credentials, a query or a fragment", () => {
    expect(load({ EXAMPLE_BASE: "http://127.0.0.1:3002/prefix" }).EXAMPLE_BASE).toBe(
      "http://127.0.0.1:3002/prefix",
    );
    for (const bad of [
      "https://user:pass@example.com",
      "https://example.com/?q=1",
      "https://example.com/#top",
    ]) {
      expect(() => load({ EXAMPLE_BASE: bad }), bad).toThrow(/EXAMPLE_BASE: must not carry credentials/);
    }
    expect(() => load({ EXAMPLE_BASE: "ws://example.com" })).toThrow(/EXAMPLE_BASE: must be an http/);
  });
});
