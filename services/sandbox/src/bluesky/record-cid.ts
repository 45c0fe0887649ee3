import { jsonToLex, lexToIpld } from "@atproto/lexicon";
import * as dagCbor from "@ipld/dag-cbor";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";

/**
 * A record's CID as a PDS computes it: CIDv1, codec dag-cbor (0x71), sha2-256, over the
 * DAG-CBOR encoding of the record, in which blob refs and `$link`s are CID links (tag 42) and
 * `$bytes` are byte strings. `record` is its JSON form (as the XRPC body carries it).
 */
export async function recordCid(record: unknown): Promise<string> {
  return (await cidOfLexValue(jsonToLex(record))).toString();
}

/** The CID of any value of the atproto data model, in its `@atproto/lexicon` form. */
export async function cidOfLexValue(value: unknown): Promise<CID> {
  const bytes = dagCbor.encode(lexToIpld(value));
  return CID.createV1(dagCbor.code, await sha256.digest(bytes));
}
