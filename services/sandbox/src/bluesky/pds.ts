import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import type { PdsHost } from "./network.ts";
import { registerCreateRecord } from "./routes/create-record.ts";
import { registerCreateSession } from "./routes/create-session.ts";
import { registerDeleteRecord } from "./routes/delete-record.ts";
import { registerDeleteSession } from "./routes/delete-session.ts";
import { registerDescribeRepo } from "./routes/describe-repo.ts";
import { registerDescribeServer } from "./routes/describe-server.ts";
import { registerGetBlob } from "./routes/get-blob.ts";
import { registerGetRecord } from "./routes/get-record.ts";
import { registerGetSession } from "./routes/get-session.ts";
import { registerListRecords } from "./routes/list-records.ts";
import { registerPutRecord } from "./routes/put-record.ts";
import { registerRefreshSession } from "./routes/refresh-session.ts";
import { registerResolveHandle } from "./routes/resolve-handle.ts";
import { registerUnknownMethod } from "./routes/unknown-method.ts";
import { registerUploadBlob, UPLOAD_BLOB_PATH } from "./routes/upload-blob.ts";
import { registerWellKnownDid } from "./routes/well-known-did.ts";

export { UPLOAD_BLOB_PATH };

/**
 * Mounts a PDS twin on an app: the XRPC methods a client signs in, writes and reads with, the
 * handle's `/.well-known/atproto-did`, and the catch-all (501 `MethodNotImplemented`) last. The
 * default PDS shares the sandbox's app; the second PDS has a listener of its own.
 */
export function registerBlueskyPds(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  for (const register of [
    registerCreateSession,
    registerRefreshSession,
    registerGetSession,
    registerDeleteSession,
    registerDescribeServer,
    registerResolveHandle,
    registerUploadBlob,
    registerCreateRecord,
    registerPutRecord,
    registerDeleteRecord,
    registerGetRecord,
    registerListRecords,
    registerDescribeRepo,
    registerGetBlob,
  ]) {
    register(app, ctx, host);
  }
  registerWellKnownDid(app, host);
  registerUnknownMethod(app);
}
