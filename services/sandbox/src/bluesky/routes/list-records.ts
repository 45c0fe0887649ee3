import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { hostedAccount } from "../accounts.ts";
import type { PdsHost } from "../network.ts";
import { recordsOf } from "../repo.ts";
import { mountXrpc, readParams } from "../xrpc.ts";

const NSID = "com.atproto.repo.listRecords";

/**
 * `com.atproto.repo.listRecords`: a collection of a repository on this PDS, newest record key
 * first (`reverse`: oldest first), `limit` 1–100 (default 50); the `cursor` is the last record
 * key answered, and the next page starts after it, as a PDS pages. Unknown repo: 400
 * `InvalidRequest` "Could not find repo".
 */
export function registerListRecords(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, NSID, "get", "List a collection's records, paged by record key", (c) => {
    const params = readParams(c, NSID) as {
      repo: string;
      collection: string;
      limit: number;
      cursor?: string;
      reverse?: boolean;
    };
    const account = hostedAccount(params.repo, host.name);
    if (!account) throw new PlatformFailure(400, "InvalidRequest", `Could not find repo: ${params.repo}`);
    const ascending = recordsOf(ctx, account.did, params.collection);
    const ordered = params.reverse ? ascending : ascending.reverse();
    const after =
      params.cursor === undefined
        ? ordered
        : ordered.filter((record) =>
            params.reverse
              ? record.rkey > (params.cursor as string)
              : record.rkey < (params.cursor as string),
          );
    const page = after.slice(0, params.limit);
    return c.json({
      ...(page.length > 0 ? { cursor: page.at(-1)?.rkey } : {}),
      records: page.map((record) => ({ uri: record.uri, cid: record.cid, value: record.value })),
    });
  });
}
