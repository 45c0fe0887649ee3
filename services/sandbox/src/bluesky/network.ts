import type { Context } from "hono";
import type { PdsName } from "./accounts.ts";

/**
 * Where the sandbox's Bluesky network listens: the default PDS (the sandbox's own URL), the
 * second PDS and the PLC directory. Each is known once its listener is up; until then a PDS
 * names itself by the origin a request reached it at.
 */
export type BlueskyNetwork = { origins: Partial<Record<PdsName | "plc", string>> };

/** One PDS of the network, as its routes see it. */
export type PdsHost = { name: PdsName; network: BlueskyNetwork };

export function createBlueskyNetwork(): BlueskyNetwork {
  return { origins: {} };
}

/** The origin of a PDS: where it listens, else where this request reached it. */
export function pdsOrigin(host: PdsHost, c: Context): string {
  return host.network.origins[host.name] ?? new URL(c.req.url).origin;
}

/** The PDS's own DID (the audience of its tokens, `describeServer`'s `did`). */
export function pdsDid(c: Context): string {
  return `did:web:${new URL(c.req.url).host.replace(":", "%3A")}`;
}
