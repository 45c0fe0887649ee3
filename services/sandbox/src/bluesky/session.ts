import type { ServiceApp } from "@app/core";
import type { SandboxContext } from "../context.ts";
import { readJsonObject } from "../kit/bodies.ts";
import { PlatformFailure } from "../kit/failure.ts";
import { mountOperation } from "../kit/operations.ts";
import { ACCOUNT, accessCaller, issueSession, refreshCaller } from "./auth.ts";
import { xrpcErrors } from "./errors.ts";

const FIVE_MINUTES_MS = 300_000;
const badBody = () => new PlatformFailure(400, "InvalidRequest", "Request body must be a JSON object");

/** `com.atproto.server.createSession`, `refreshSession` (rotating), `getSession` and `deleteSession`. */
export function registerBlueskySession(app: ServiceApp, ctx: SandboxContext): void {
  const xrpc = (
    name: string,
    method: "get" | "post",
    summary: string,
    handler: Parameters<typeof mountOperation>[3],
  ) =>
    mountOperation(
      app,
      ctx.kit,
      { operation: name, platform: "bluesky", method, path: `/xrpc/${name}`, summary, errors: xrpcErrors },
      handler,
    );
  xrpc(
    "com.atproto.server.createSession",
    "post",
    "Sign in with a handle (or email, or DID) and an app password",
    async (c) => {
      const body = await readJsonObject(c, badBody);
      const { identifier, password } = body;
      if (typeof identifier !== "string" || typeof password !== "string") {
        throw new PlatformFailure(
          400,
          "InvalidRequest",
          'Input must have the properties "identifier" and "password"',
        );
      }
      const decision = ctx.limiter.take(
        `bluesky.createSession:${identifier.toLowerCase()}`,
        ctx.settings.bluesky.sessionsPerFiveMinutes,
        FIVE_MINUTES_MS,
        ctx.kit.clock.now(),
      );
      const rateHeaders = {
        "ratelimit-limit": String(decision.limit),
        "ratelimit-remaining": String(decision.remaining),
        "ratelimit-reset": String(Math.ceil(decision.resetAt.getTime() / 1000)),
        "ratelimit-policy": `${decision.limit};w=300`,
      };
      if (!decision.allowed)
        throw new PlatformFailure(429, "RateLimitExceeded", "Rate Limit Exceeded", rateHeaders);
      const known = ([ACCOUNT.handle, ACCOUNT.email, ACCOUNT.did] as string[]).includes(
        identifier.toLowerCase().replace(/^@/, ""),
      );
      const appPassword = password === ACCOUNT.appPassword;
      if (!known || (!appPassword && password !== ACCOUNT.password)) {
        throw new PlatformFailure(
          401,
          "AuthenticationRequired",
          "Invalid identifier or password",
          rateHeaders,
        );
      }
      return c.json(issueSession(c, ctx, appPassword), 200, rateHeaders);
    },
  );
  xrpc(
    "com.atproto.server.refreshSession",
    "post",
    "A new session for a live refresh token (the old one stops working)",
    (c) => {
      const claims = refreshCaller(c, ctx);
      const appPassword = ctx.bluesky.refreshTokens.get(claims.jti)?.appPassword ?? false;
      ctx.bluesky.refreshTokens.delete(claims.jti);
      return c.json(issueSession(c, ctx, appPassword));
    },
  );
  xrpc("com.atproto.server.getSession", "get", "The session's account", (c) => {
    accessCaller(c, ctx);
    return c.json({
      handle: ACCOUNT.handle,
      did: ACCOUNT.did,
      email: ACCOUNT.email,
      emailConfirmed: true,
      active: true,
    });
  });
  xrpc("com.atproto.server.deleteSession", "post", "Sign out: the refresh token stops working", (c) => {
    const claims = refreshCaller(c, ctx);
    ctx.bluesky.refreshTokens.delete(claims.jti);
    return c.body(null, 200);
  });
}
