import { readFile } from "node:fs/promises";
import { describe, expect, test } from "vitest";
import { formatUsd } from "../src/domain/money.ts";
import { type JsonSchema, toJsonSchema } from "../src/domain/tool-schema.ts";
import { PROVIDERS } from "../src/registry/providers.ts";

type Property = {
  type?: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  default?: unknown;
  pattern?: string;
};

/** A parameter schema in one table cell: `name` type bounds, default, required. */
function describeParams(schema: JsonSchema): string {
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Property>);
  const required = (schema.required ?? []) as string[];
  if (properties.length === 0) return "none";
  return properties
    .map(([name, property]) => {
      const parts = [
        `\`${name}\``,
        property.enum ? `one of ${property.enum.join(", ")}` : (property.type ?? "any"),
      ];
      if (property.minimum !== undefined) parts.push(`${property.minimum}..${property.maximum}`);
      if (property.pattern === "^\\d{4}-\\d{2}-\\d{2}$") parts.push("YYYY-MM-DD");
      if (property.default !== undefined) parts.push(`default ${String(property.default)}`);
      if (required.includes(name)) parts.push("**required**");
      return parts.join(" ");
    })
    .join("; ");
}

/** The README's tools table, rendered from the registry. */
export function toolsTable(): string {
  const lines = [
    "| Provider | Endpoint (GET) | Tool | Query params | Path params | Upstream key header | Price (USD) |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const provider of PROVIDERS) {
    for (const tool of provider.tools) {
      lines.push(
        `| \`${provider.id}\` | \`${tool.endpoint}\` | ${tool.name} | ${describeParams(toJsonSchema(tool.queryParams))} | ${describeParams(toJsonSchema(tool.pathParams))} | ${provider.upstreamKeyHeader ? `\`${provider.upstreamKeyHeader}\`` : "none"} | ${formatUsd(tool.priceMicro)} |`,
      );
    }
  }
  return lines.join("\n");
}

describe("the README", () => {
  test("its tools table is the registry's, cell for cell", async () => {
    const readme = await readFile(new URL("../README.md", import.meta.url), "utf8");
    const table = toolsTable();
    expect(readme.includes(table), `README.md should contain:\n\n${table}\n`).toBe(true);
  });
});
