import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { issueSession, refreshCaller, rotateRefreshToken } from "../auth.ts";
import type { PdsHost } from "../network.ts";
import { mountXrpc } from "../xrpc.ts";

/**
 * `com.atproto.server.refreshSession`: a new pair for a live refresh token. The old token keeps
 * refreshing for the grace period (always into the same next token), then is
 * `ExpiredToken` "Token has been revoked", as a PDS's `rotateRefreshToken` does.
 */
export function registerRefreshSession(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(
    app,
    ctx,
    "com.atproto.server.refreshSession",
    "post",
    "A new session for a refresh token (the old one keeps working for the grace period)",
    (c) => {
      const claims = refreshCaller(c, ctx, host);
      const { nextJti, appPassword } = rotateRefreshToken(ctx, claims.jti);
      return c.json(issueSession(c, ctx, host, claims.account, appPassword, nextJti));
    },
  );
}
