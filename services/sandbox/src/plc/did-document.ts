import type { BlueskyAccount } from "../bluesky/accounts.ts";
import { signingKeyMultibase } from "./signing-key.ts";

/** A DID document as the PLC directory serves it. */
export type DidDocument = {
  "@context": string[];
  id: string;
  alsoKnownAs: string[];
  verificationMethod: { id: string; type: string; controller: string; publicKeyMultibase: string }[];
  service: { id: string; type: string; serviceEndpoint: string }[];
};

/**
 * An account's DID document, shaped as plc.directory answers `GET /<did>`: the handle as
 * `at://<handle>`, the `#atproto` signing key (Multikey) and the `#atproto_pds` service (the
 * origin of the PDS hosting the account; omitted while that PDS's origin is unknown).
 */
export function didDocumentOf(account: BlueskyAccount, pdsOrigin: string | undefined): DidDocument {
  return {
    "@context": [
      "https://www.w3.org/ns/did/v1",
      "https://w3id.org/security/multikey/v1",
      "https://w3id.org/security/suites/secp256k1-2019/v1",
    ],
    id: account.did,
    alsoKnownAs: [`at://${account.handle}`],
    verificationMethod: [
      {
        id: `${account.did}#atproto`,
        type: "Multikey",
        controller: account.did,
        publicKeyMultibase: signingKeyMultibase(account.did),
      },
    ],
    service: pdsOrigin
      ? [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: pdsOrigin }]
      : [],
  };
}
