import { randomBytes } from "node:crypto";
import type { Clock, Logger } from "@app/core";
import type { BlueskyState } from "./bluesky/state.ts";
import type { SandboxSettings } from "./config.ts";
import type { GoogleState } from "./google/state.ts";
import { FaultBook } from "./kit/faults.ts";
import { OAuthGrants } from "./kit/oauth-grants.ts";
import type { OperationKit } from "./kit/operations.ts";
import { RateLimiter } from "./kit/rate-limiter.ts";
import { RequestLog } from "./kit/request-log.ts";
import type { TikTokState } from "./tiktok/state.ts";

/**
 * Everything the twins share: settings, the request log, faults, rate limits and each platform's
 * state. All of it lives in memory: a restart forgets tokens, sessions and what was published
 * (as if the platform had revoked every grant), which the README says.
 */
export type SandboxContext = {
  settings: SandboxSettings;
  kit: OperationKit;
  limiter: RateLimiter;
  google: GoogleState;
  tiktok: TikTokState;
  bluesky: BlueskyState;
};

/** A fresh sandbox: nothing issued, nothing published. */
export function createSandboxContext(
  settings: SandboxSettings,
  clock: Clock,
  logger: Logger,
): SandboxContext {
  return {
    settings,
    kit: { log: new RequestLog(settings.requestLogSize), faults: new FaultBook(), clock, logger },
    limiter: new RateLimiter(),
    google: {
      grants: new OAuthGrants(clock),
      sessions: new Map(),
      videos: [],
      rotateRefreshTokens: settings.google.rotateRefreshTokens,
    },
    tiktok: {
      grants: new OAuthGrants(clock),
      posts: new Map(),
      verifiedUrlPrefixes: [...settings.tiktok.verifiedUrlPrefixes],
      outcome: { kind: "complete" },
      processingPolls: settings.tiktok.processingPolls,
    },
    bluesky: {
      jwtSecret: randomBytes(32),
      refreshTokens: new Map(),
      accessNotBefore: new Map(),
      blobs: new Map(),
      records: new Map(),
    },
  };
}

/** Empties the sandbox in place (`POST /_sandbox/reset`): what a test does between cases. */
export function resetSandboxContext(ctx: SandboxContext): void {
  const fresh = createSandboxContext(ctx.settings, ctx.kit.clock, ctx.kit.logger);
  ctx.kit.log.clear();
  ctx.kit.faults.clear();
  ctx.limiter.clear();
  Object.assign(ctx.google, fresh.google);
  Object.assign(ctx.tiktok, fresh.tiktok);
  Object.assign(ctx.bluesky, fresh.bluesky);
}
