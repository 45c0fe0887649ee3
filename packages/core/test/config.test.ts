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
