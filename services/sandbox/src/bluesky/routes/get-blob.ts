import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { hostedAccount } from "../accounts.ts";
import type { PdsHost } from "../network.ts";
import { isBlobReferenced } from "../repo.ts";
import { blobKey } from "../state.ts";
import { mountXrpc, readParams } from "../xrpc.ts";

const NSID = "com.atproto.sync.getBlob";

/**
 * `com.atproto.sync.getBlob`: a blob's bytes, with the type sniffed at upload and the PDS's
 * safety headers (`nosniff`, an attachment disposition, a sandboxing CSP). As on a PDS, only a
 * blob a record references is served (an upload no record uses stays temporary): otherwise 400
 * `InvalidRequest` "Blob not found"; a DID not hosted here is 400 `RepoNotFound`.
 */
export function registerGetBlob(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "get", "A blob's bytes (once a record references it)", (c) => {
    const { did, cid } = readParams(c, NSID) as { did: string; cid: string };
    if (!hostedAccount(did, host.name)) {
      throw new PlatformFailure(400, "RepoNotFound", `Could not find repo for DID: ${did}`);
    }
    const blob = ctx.bluesky.blobs.get(blobKey(did, cid));
    if (!blob || !isBlobReferenced(ctx, did, cid))
      throw new PlatformFailure(400, "InvalidRequest", "Blob not found");
    return c.body(new Uint8Array(blob.bytes), 200, {
      "content-type": blob.mimeType,
      "content-length": String(blob.size),
      "x-content-type-options": "nosniff",
      "content-disposition": `attachment; filename="${cid}"`,
      "content-security-policy": "default-src 'none'; sandbox",
    });
  });
}
