import { z } from "@app/core";
import type { ParamsSchema } from "../registry/types.ts";

/** A JSON Schema document, as `inspect` renders it. */
export type JsonSchema = Record<string, unknown>;

type DefaultDef = { type: string; defaultValue?: unknown };

/**
 * A parameter schema as JSON Schema (draft 2020-12), as the caller writes the input: types,
 * bounds, enums, defaults, required names, `additionalProperties: false`. The `$schema` line is
 * left out. (zod drops the default of a field whose inner schema preprocesses, as the whole
 * numbers here do, so it is put back from the schema's definition.)
 */
export function toJsonSchema(schema: ParamsSchema): JsonSchema {
  const { $schema: _schema, ...document } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    override: (context) => {
      const def = (context.zodSchema as unknown as { _zod: { def: DefaultDef } })._zod.def;
      if (def.type === "default" && context.jsonSchema.default === undefined) {
        context.jsonSchema.default = def.defaultValue;
      }
    },
  }) as JsonSchema;
  return document;
}
