import type { Context } from "hono";
import type { SandboxContext } from "../context.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { type BlueskyAccount, hostedAccount } from "./accounts.ts";
import { accessCaller } from "./auth.ts";
import { dropExpiredUploads } from "./blob-store.ts";
import type { PdsHost } from "./network.ts";
import { prepareRecord } from "./record-validation.ts";
import { verifyRecordBlobs } from "./repo.ts";
import { blobKey } from "./state.ts";

/**
 * The repository a write goes to: it must be an account of this PDS (else 403 AccountNotFound
 * "Account not found") and the caller's own (else 401 AuthenticationRequired), as a PDS checks.
 */
export function writableRepo(c: Context, ctx: SandboxContext, host: PdsHost, repo: string): BlueskyAccount {
  const caller = accessCaller(c, ctx, host);
  const account = hostedAccount(repo, host.name);
  if (!account) throw new PlatformFailure(403, "AccountNotFound", "Account not found");
  if (account.did !== caller.did)
    throw new PlatformFailure(401, "AuthenticationRequired", "Authentication Required");
  return account;
}

/**
 * A record checked for writing into a repository: lexicon validation, then its blobs against what
 * was uploaded and is still kept (an upload no record referenced within the hour is gone).
 */
export function checkedRecord(
  ctx: SandboxContext,
  did: string,
  input: { collection: string; rkey: string; record: Record<string, unknown>; validate: boolean | undefined },
) {
  dropExpiredUploads(ctx);
  const prepared = prepareRecord({ ...input, blobs: (cid) => ctx.bluesky.blobs.get(blobKey(did, cid)) });
  verifyRecordBlobs(ctx, did, prepared);
  return prepared;
}
