import { ValidationError } from "@atproto/lexicon";
import { PlatformFailure } from "../kit/failure.ts";
import { acceptsMime, allBlobRefs, constrainedBlobs } from "./blob-refs.ts";
import { isRecordKey, recordKeyProblem } from "./identifiers.ts";
import { lexFromJson } from "./lex-input.ts";
import { atprotoLexicons, recordDefinition } from "./lexicons.ts";

/** A record ready to store: its JSON form (with `$type`), the blobs it references and its validation status. */
export type PreparedRecord = {
  value: Record<string, unknown>;
  /** The record in `@atproto/lexicon` form (blob refs as `BlobRef`, links as CIDs). */
  lex: unknown;
  blobs: { cid: string; mimeType: string; size: number }[];
  validationStatus: "valid" | "unknown" | null;
};

/** What a write knows of an uploaded blob: its real (sniffed) type and size. */
export type BlobLookup = (cid: string) => { mimeType: string; size: number } | undefined;

const invalid = (message: string) => new PlatformFailure(400, "InvalidRequest", message);

/** The first number that is not a safe integer (the atproto data model has no floats), with its path. */
function firstNonInteger(value: unknown, path: string, depth = 0): string | undefined {
  if (depth > 64) return undefined;
  if (typeof value === "number") return Number.isSafeInteger(value) ? undefined : `${path} (${value})`;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = firstNonInteger(item, `${path}/${index}`, depth + 1);
      if (found) return found;
    }
  } else if (typeof value === "object" && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = firstNonInteger(item, `${path}/${key}`, depth + 1);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Checks a record as a PDS's `prepareCreate`/`prepareUpdate` does, with `validate` meaning what
 * it means there: `false` skips validation (status absent); unset validates a collection the
 * lexicons know and stores any other one as `unknown`; `true` refuses an unknown collection.
 * `$type` defaults to the collection and must match it; the record key must be valid and fit
 * the lexicon's key type; the record must pass the official validator, and each blob must fit its
 * field's `accept` and `maxSize`, measured on the stored blob (its sniffed type, its real size).
 * Every refusal is 400 `InvalidRequest` with the validator's message, which names the path.
 */
export function prepareRecord(input: {
  collection: string;
  rkey: string;
  record: Record<string, unknown>;
  validate: boolean | undefined;
  blobs: BlobLookup;
}): PreparedRecord {
  const { collection, rkey, validate } = input;
  if (input.record.$type !== undefined && input.record.$type !== collection) {
    throw invalid(`Invalid $type: expected ${collection}, got ${String(input.record.$type).slice(0, 320)}`);
  }
  if (!isRecordKey(rkey)) throw invalid(`Invalid record key: ${rkey.slice(0, 520)}`);
  const value = { ...input.record, $type: collection };
  const float = firstNonInteger(value, "Record");
  if (float)
    throw invalid(
      `Invalid ${collection} record: ${float} is not an integer (the atproto data model has no floats)`,
    );
  const lex = lexFromJson(value);
  const refs = allBlobRefs(lex).map((ref) => ({
    cid: ref.ref.toString(),
    mimeType: ref.mimeType,
    size: ref.size,
  }));
  const prepared = (validationStatus: PreparedRecord["validationStatus"]): PreparedRecord => ({
    value,
    lex,
    blobs: refs,
    validationStatus,
  });
  if (validate === false) return prepared(null);
  const definition = recordDefinition(collection);
  if (!definition) {
    if (validate === true) throw invalid(`Unknown lexicon type: ${collection}`);
    return prepared("unknown");
  }
  const keyProblem = recordKeyProblem(definition.key, rkey);
  if (keyProblem) throw invalid(`Invalid record key for ${collection}: ${keyProblem}`);
  try {
    atprotoLexicons.assertValidRecord(collection, lex);
  } catch (error) {
    if (error instanceof ValidationError) throw invalid(`Invalid ${collection} record: ${error.message}`);
    throw error;
  }
  for (const blob of constrainedBlobs(atprotoLexicons, collection, lex)) {
    const stored = input.blobs(blob.ref.ref.toString());
    const mimeType = stored?.mimeType ?? blob.ref.mimeType;
    const size = stored?.size ?? blob.ref.size;
    if (!acceptsMime(blob.accept, mimeType)) {
      throw invalid(
        `Invalid ${collection} record: ${blob.path} mimeType must be one of ${blob.accept?.join(", ")} (got ${mimeType})`,
      );
    }
    if (blob.maxSize !== undefined && size > blob.maxSize) {
      throw invalid(
        `Invalid ${collection} record: ${blob.path} blob too big (maximum ${blob.maxSize}, got ${size})`,
      );
    }
  }
  return prepared("valid");
}
