import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { accessCaller, sessionView } from "../auth.ts";
import type { PdsHost } from "../network.ts";
import { mountXrpc } from "../xrpc.ts";

/** `com.atproto.server.getSession`: the access token's account (what `resumeSession` calls). */
export function registerGetSession(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(app, ctx, "com.atproto.server.getSession", "get", "The session's account", (c) =>
    c.json(sessionView(c, host, accessCaller(c, ctx, host))),
  );
}
