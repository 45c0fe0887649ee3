import type { ServiceApp } from "@app/core";
import { HANDLE_DOMAINS, hostedAccount } from "../accounts.ts";
import type { PdsHost } from "../network.ts";

/**
 * `GET /.well-known/atproto-did`: the DID of the handle this request's `Host` names, when it is an
 * account of this PDS under one of its handle domains (text/plain), else 404 "User not found",
 * as a PDS answers handle resolution over HTTPS.
 */
export function registerWellKnownDid(app: ServiceApp, host: PdsHost): void {
  app.get("/.well-known/atproto-did", (c) => {
    const hostname = (c.req.header("host") ?? new URL(c.req.url).host).replace(/:\d+$/, "").toLowerCase();
    const supported = HANDLE_DOMAINS[host.name].some(
      (domain) => hostname.endsWith(domain) || hostname === domain.slice(1),
    );
    const account = supported ? hostedAccount(hostname, host.name) : undefined;
    if (!account) return c.text("User not found", 404);
    return c.text(account.did, 200);
  });
}
