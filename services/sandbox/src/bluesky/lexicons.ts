import { schemas } from "@atproto/api";
import { Lexicons } from "@atproto/lexicon";

/**
 * The official lexicons: `@atproto/lexicon`'s validator loaded with the lexicon documents
 * `@atproto/api` ships (`schemas`), the ones a PDS built from the same release validates with.
 */
export const atprotoLexicons = new Lexicons(schemas);

/** The record definition of a collection, when the lexicons know it as a record type. */
export function recordDefinition(collection: string): { key?: string } | undefined {
  const def = atprotoLexicons.getDef(collection);
  return def?.type === "record" ? (def as { key?: string }) : undefined;
}

/** The type of an XRPC method the lexicons define (`query` answers GET, `procedure` POST). */
export function methodType(nsid: string): "query" | "procedure" | "subscription" | undefined {
  const type = atprotoLexicons.getDef(nsid)?.type;
  return type === "query" || type === "procedure" || type === "subscription" ? type : undefined;
}
