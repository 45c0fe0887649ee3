import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import {
  DidPlcResolver,
  DidWebResolver,
  getHandle,
  getPds,
  PoorlyFormattedDidDocumentError,
  PoorlyFormattedDidError,
} from "@atproto/identity";
import { isValidDid, isValidHandle, normalizeHandle } from "@atproto/syntax";
import { isPublicAddress } from "../../media/address-policy.ts";
import { PlatformError } from "../errors.ts";
import type { BlueskyAdapter } from "./bluesky-client.ts";

/** Where an account lives: its DID, its handle (when the DID document and the handle agree), and its PDS. */
export type BlueskyIdentity = { did: string; handle?: string; pds: string };

/** Finds an account's PDS from its handle or DID (interface, so tests can swap it). */
export interface BlueskyIdentityResolver {
  /** `identifier`: a handle (`alice.example.com`, with or without `@`) or a DID. */
  resolve(identifier: string): Promise<BlueskyIdentity>;
}

export type IdentitySettings = {
  /** The service handles are resolved at (`https://bsky.social`: it resolves any handle of the network). */
  entryService: string;
  /** The PLC directory did:plc documents are read from (`https://plc.directory`). */
  plcUrl: string;
  /** Origins trusted as they are (the sandbox's PDSes); any other PDS must be https on a public address. */
  trustedOrigins: readonly string[];
  timeoutMs?: number;
};

const unresolved = (message: string) =>
  new PlatformError("bluesky", "permanent", "IdentityUnresolved", message);

/**
 * The real resolver, as Bluesky's clients find an account's PDS: handle → DID with
 * `com.atproto.identity.resolveHandle` at the entry service, DID → document
 * with `@atproto/identity` (did:plc from the configured PLC directory, did:web from the domain's
 * `/.well-known/did.json` through the library's SSRF-safe fetch), then the document's
 * `#atproto_pds` endpoint. A PDS must be https on a public address unless its origin is trusted,
 * so a DID document cannot point the app password at a private or metadata address.
 */
export function createIdentityResolver(
  settings: IdentitySettings,
  adapter: Pick<BlueskyAdapter, "resolveHandle">,
): BlueskyIdentityResolver {
  const timeoutMs = settings.timeoutMs ?? 10_000;
  // The PLC directory is the operator's choice (the sandbox's on loopback); did:web names any host.
  const plc = new DidPlcResolver(settings.plcUrl, timeoutMs, undefined, globalThis.fetch);
  const web = new DidWebResolver(timeoutMs);

  async function checkPds(service: string): Promise<void> {
    let url: URL;
    try {
      url = new URL(service);
    } catch {
      throw unresolved("The account's PDS address is not a URL.");
    }
    if (settings.trustedOrigins.includes(url.origin)) return;
    if (url.protocol !== "https:" || url.username || url.password) {
      throw unresolved("The account's PDS is not an https address.");
    }
    const host = url.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(host)
      ? [host]
      : await lookup(host, { all: true }).then(
          (found) => found.map((entry) => entry.address),
          () => [] as string[],
        );
    if (addresses.length === 0 || !addresses.every(isPublicAddress)) {
      throw unresolved("The account's PDS is not on a public address.");
    }
  }

  /**
   * The document's handle when it points back at the DID (the handle given, or one that resolves to
   * it), as Bluesky shows a handle only when both agree; undefined otherwise.
   */
  async function verifiedHandle(
    did: string,
    claimed: string | undefined,
    given: string | undefined,
  ): Promise<string | undefined> {
    if (!claimed || !isValidHandle(claimed)) return undefined;
    const handle = normalizeHandle(claimed);
    if (handle === given) return handle;
    return (await adapter.resolveHandle(settings.entryService, handle).catch(() => undefined)) === did
      ? handle
      : undefined;
  }

  return {
    async resolve(identifier) {
      const name = identifier.trim().replace(/^@/, "");
      const given = name.startsWith("did:") ? undefined : normalizeHandle(name);
      if (given !== undefined && !isValidHandle(given)) throw unresolved(`${name} is not a Bluesky handle.`);
      const did = given === undefined ? name : await adapter.resolveHandle(settings.entryService, given);
      if (!did) throw unresolved(`No Bluesky account has the handle ${given}.`);
      if (!isValidDid(did)) throw unresolved(`${did} is not a DID.`);
      const resolver = did.startsWith("did:plc:") ? plc : did.startsWith("did:web:") ? web : undefined;
      if (!resolver) throw unresolved(`${did} is not a did:plc or did:web.`);
      const document = await resolver.resolve(did, true).catch((error: unknown) => {
        if (error instanceof PoorlyFormattedDidDocumentError || error instanceof PoorlyFormattedDidError) {
          throw unresolved(`The DID document of ${did} is not valid.`);
        }
        throw new PlatformError(
          "bluesky",
          "transient",
          "IdentityUnavailable",
          `${did} could not be resolved now.`,
        );
      });
      if (!document) throw unresolved(`The DID document of ${did} could not be read.`);
      const pds = getPds(document);
      if (!pds) throw unresolved(`The DID document of ${did} names no PDS.`);
      await checkPds(pds);
      return {
        did,
        handle: await verifiedHandle(did, getHandle(document), given),
        pds: pds.replace(/\/+$/, ""),
      };
    },
  };
}
