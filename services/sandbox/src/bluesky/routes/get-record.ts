import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { findAccount } from "../accounts.ts";
import type { PdsHost } from "../network.ts";
import { recordUri } from "../repo.ts";
import { mountXrpc, readParams } from "../xrpc.ts";

const NSID = "com.atproto.repo.getRecord";

/**
 * `com.atproto.repo.getRecord`: no authentication, as on a PDS. A record of an account on the
 * other PDS is answered too (a PDS proxies such reads to the AppView, which indexes the whole
 * network); a missing one is 400 `RecordNotFound`.
 */
export function registerGetRecord(app: ServiceApp, ctx: SandboxContext, _host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "get", "Read a record (no authentication, as on a PDS)", (c) => {
    const params = readParams(c, NSID) as { repo: string; collection: string; rkey: string; cid?: string };
    const did = findAccount(params.repo)?.did ?? params.repo;
    const uri = recordUri(did, params.collection, params.rkey);
    const stored = ctx.bluesky.records.get(uri);
    if (!stored || (params.cid !== undefined && params.cid !== stored.cid)) {
      throw new PlatformFailure(400, "RecordNotFound", `Could not locate record: ${uri}`);
    }
    return c.json({ uri: stored.uri, cid: stored.cid, value: stored.value });
  });
}
