import type { ServiceApp } from "@app/core";
import { ValidationError } from "@atproto/lexicon";
import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { readJsonObject } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation, type OperationHandler } from "../kit/operations.ts";
import { xrpcErrors } from "./errors.ts";
import { lexFromJson } from "./lex-input.ts";
import { atprotoLexicons } from "./lexicons.ts";

const invalid = (message: string) => new PlatformFailure(400, "InvalidRequest", message);

/** Mounts one XRPC method at `/xrpc/<nsid>` (request log, faults, XRPC error bodies). */
export function mountXrpc(
  app: ServiceApp,
  ctx: SandboxContext,
  nsid: string,
  method: "get" | "post",
  summary: string,
  handler: OperationHandler,
): void {
  mountOperation(
    app,
    ctx.kit,
    { operation: nsid, platform: "bluesky", method, path: `/xrpc/${nsid}`, summary, errors: xrpcErrors },
    handler,
  );
}

function asLexiconRefusal(error: unknown): never {
  if (error instanceof ValidationError) throw invalid(error.message);
  throw error;
}

/**
 * A procedure's JSON body, checked against the method's lexicon as the XRPC server checks it
 * (`Input must have the property "repo"`, `Input/collection must be a valid nsid`…). A body the
 * data model cannot hold (a `__proto__` key, nesting past `MAX_NESTING_DEPTH`) is 400
 * `InvalidRequest` too, as the XRPC server answers it.
 */
export async function readInput(c: Context, nsid: string): Promise<Record<string, unknown>> {
  const body = await readJsonObject(c, () => invalid("Request body must be a JSON object"));
  const lex = lexFromJson(body);
  try {
    atprotoLexicons.assertValidXrpcInput(nsid, lex);
  } catch (error) {
    asLexiconRefusal(error);
  }
  return body;
}

type ParamDef = { type: string; items?: { type: string } };

function decodeParam(def: ParamDef, raw: string): unknown {
  if (def.type === "integer") return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (def.type === "boolean") return raw === "true" ? true : raw === "false" ? false : raw;
  return raw;
}

/**
 * A query's parameters, decoded by their lexicon types (integers, booleans, arrays) and checked
 * against the lexicon, defaults applied (`limit` 50…), as the XRPC server does.
 */
export function readParams(c: Context, nsid: string): Record<string, unknown> {
  const def = atprotoLexicons.getDef(nsid) as { parameters?: { properties?: Record<string, ParamDef> } };
  const url = new URL(c.req.url);
  const params: Record<string, unknown> = {};
  for (const [name, paramDef] of Object.entries(def.parameters?.properties ?? {})) {
    const values = url.searchParams.getAll(name);
    if (values.length === 0) continue;
    params[name] =
      paramDef.type === "array"
        ? values.map((value) => decodeParam(paramDef.items ?? { type: "string" }, value))
        : decodeParam(paramDef, values[0] ?? "");
  }
  try {
    return atprotoLexicons.assertValidXrpcParams(nsid, params) ?? params;
  } catch (error) {
    asLexiconRefusal(error);
  }
}
