import type { Context } from "hono";
import { type DidDocument, didDocumentOf } from "../plc/did-document.ts";
import type { BlueskyAccount } from "./accounts.ts";
import { type PdsHost, pdsOrigin } from "./network.ts";

/**
 * An account's DID document as a PDS of the network hands it out (createSession's `didDoc`,
 * describeRepo's): the same document the PLC directory serves. The PDS answering names itself
 * by where it listens (or where the request reached it, when it is served alone, as in tests).
 */
export function didDocumentOfAccount(c: Context, host: PdsHost, account: BlueskyAccount): DidDocument {
  const origin = account.pds === host.name ? pdsOrigin(host, c) : host.network.origins[account.pds];
  return didDocumentOf(account, origin);
}
