import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../../context.ts";
import { PlatformFailure } from "../../kit/failure.ts";
import { findLoginAccount } from "../accounts.ts";
import { issueSession } from "../auth.ts";
import type { PdsHost } from "../network.ts";
import { mountXrpc, readInput } from "../xrpc.ts";

const NSID = "com.atproto.server.createSession";

/**
 * `com.atproto.server.createSession`: a handle, email or DID and the account or an app password.
 * Only accounts hosted on this PDS sign in here: any other is "Invalid identifier or password",
 * as a PDS answers for an account it does not hold. 30 tries per 5 minutes per identifier.
 */
export function registerCreateSession(app: ServiceApp, ctx: SandboxContext, host: PdsHost): void {
  mountXrpc(
    app,
    ctx,
    NSID,
    "post",
    "Sign in with a handle (or email, or DID) and an app password",
    async (c) => {
      const { identifier, password } = (await readInput(c, NSID)) as { identifier: string; password: string };
      const sessions = ctx.limits.blueskySessions;
      const decision = sessions.take(`${host.name}:${identifier.toLowerCase()}`);
      // A PDS's own headers: the reset as a Unix time, the policy as `limit;w=seconds`.
      const rateHeaders = {
        "ratelimit-limit": String(decision.limit),
        "ratelimit-remaining": String(decision.remaining),
        "ratelimit-reset": String(Math.floor(ctx.kit.clock.now().getTime() / 1000) + decision.resetSeconds),
        "ratelimit-policy": `${decision.limit};w=${sessions.rule.windowSeconds}`,
      };
      if (!decision.allowed)
        throw new PlatformFailure(429, "RateLimitExceeded", "Rate Limit Exceeded", rateHeaders);
      const account = findLoginAccount(identifier);
      const appPassword = password === account?.appPassword;
      if (!account || account.pds !== host.name || (!appPassword && password !== account.password)) {
        throw new PlatformFailure(
          401,
          "AuthenticationRequired",
          "Invalid identifier or password",
          rateHeaders,
        );
      }
      return c.json(issueSession(c, ctx, host, account, appPassword), 200, rateHeaders);
    },
  );
}
