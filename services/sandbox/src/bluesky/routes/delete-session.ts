import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { refreshCaller } from "../auth.ts";
import type { PdsHost } from "../network.ts";
import { mountXrpc } from "../xrpc.ts";

/** `com.atproto.server.deleteSession`: sign out; the refresh token stops working. */
export function registerDeleteSession(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(
    app,
    ctx,
    "com.atproto.server.deleteSession",
    "post",
    "Sign out: the refresh token stops working",
    (c) => {
      ctx.bluesky.refreshTokens.delete(refreshCaller(c, ctx, host).jti);
      return c.body(null, 200);
    },
  );
}
