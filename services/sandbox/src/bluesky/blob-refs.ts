import type { Lexicons } from "@atproto/lexicon";
import { BlobRef } from "@atproto/lexicon";
import { CID } from "multiformats/cid";

/** A blob ref found in a record, with the constraints its lexicon field puts on it. */
export type BlobAtPath = { path: string; ref: BlobRef; accept?: string[]; maxSize?: number };

type Def = { type: string; [key: string]: unknown };

const MAX_DEPTH = 32;
const isMap = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof BlobRef);
const withoutMain = (uri: string) => uri.replace(/^lex:/, "").replace(/#main$/, "");

/** `accept` as lexicons write it: exact types, `type/*` wildcards, or `*\/*`. */
export function acceptsMime(accept: readonly string[] | undefined, mime: string): boolean {
  if (!accept) return true;
  return accept.some(
    (pattern) =>
      pattern === "*/*" ||
      pattern === mime ||
      (pattern.endsWith("/*") && mime.startsWith(pattern.slice(0, -1))),
  );
}

/**
 * Every blob ref of a record that its lexicon types as a `blob` field, with that field's
 * `accept` and `maxSize` (an image of `app.bsky.embed.images`, a video of `app.bsky.embed.video`,
 * a profile's avatar…), found by walking the record along its schema: objects, arrays, refs and
 * the union member the value's `$type` names. `record` is in `@atproto/lexicon` form (blob refs
 * as `BlobRef`); paths read as the validator's (`Record/embed/images/0/image`).
 */
export function constrainedBlobs(lexicons: Lexicons, collection: string, record: unknown): BlobAtPath[] {
  const found: BlobAtPath[] = [];
  const resolve = (ref: string, base: string) => {
    const uri = ref.startsWith("#") ? `${base}${ref}` : ref;
    const def = lexicons.getDef(uri) as Def | undefined;
    return def ? { def, base: withoutMain(uri).split("#")[0] ?? base } : undefined;
  };
  const walk = (def: Def, value: unknown, path: string, base: string, depth: number): void => {
    if (depth > MAX_DEPTH || value === undefined) return;
    if (def.type === "record") {
      walk(def.record as Def, value, path, base, depth + 1);
      return;
    }
    if (def.type === "object" && isMap(value)) {
      for (const [key, property] of Object.entries((def.properties ?? {}) as Record<string, Def>)) {
        walk(property, value[key], `${path}/${key}`, base, depth + 1);
      }
      return;
    }
    if (def.type === "array" && Array.isArray(value)) {
      for (const [index, item] of value.entries()) {
        walk(def.items as Def, item, `${path}/${index}`, base, depth + 1);
      }
      return;
    }
    if (def.type === "ref") {
      const target = resolve(def.ref as string, base);
      if (target) walk(target.def, value, path, target.base, depth + 1);
      return;
    }
    if (def.type === "union" && isMap(value) && typeof value.$type === "string") {
      const wanted = withoutMain(value.$type);
      const member = (def.refs as string[]).find(
        (ref) => withoutMain(ref.startsWith("#") ? `${base}${ref}` : ref) === wanted,
      );
      const target = member ? resolve(member, base) : undefined;
      if (target) walk(target.def, value, path, target.base, depth + 1);
      return;
    }
    if (def.type === "blob" && value instanceof BlobRef) {
      found.push({
        path,
        ref: value,
        accept: def.accept as string[] | undefined,
        maxSize: def.maxSize as number | undefined,
      });
    }
  };
  const main = lexicons.getDef(collection) as Def | undefined;
  if (main) walk(main, record, "Record", collection, 0);
  return found;
}

/** Every blob ref anywhere in a record (in `@atproto/lexicon` form), typed by a lexicon or not. */
export function allBlobRefs(value: unknown, depth = 0): BlobRef[] {
  if (depth > MAX_DEPTH) return [];
  if (value instanceof BlobRef) return [value];
  if (Array.isArray(value)) return value.flatMap((item) => allBlobRefs(item, depth + 1));
  if (isMap(value) && !(value instanceof Uint8Array) && !CID.asCID(value)) {
    return Object.values(value).flatMap((item) => allBlobRefs(item, depth + 1));
  }
  return [];
}
