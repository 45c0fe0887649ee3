import { randomBytes } from "node:crypto";
import type { Clock, Logger } from "@app/core";
import { MemoryFixedWindow } from "@app/edge";
import type { BlueskyState } from "./bluesky/state.ts";
import type { SandboxSettings } from "./config.ts";
import type { GoogleState } from "./google/state.ts";
import { FaultBook } from "./kit/faults.ts";
import { OAuthGrants } from "./kit/oauth-grants.ts";
import type { OperationKit } from "./kit/operations.ts";
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
  limits: SandboxLimits;
  google: GoogleState;
  tiktok: TikTokState;
  bluesky: BlueskyState;
};

/**
 * The twins' rate limits, one fixed window in memory per limited operation, at the settings'
 * numbers. Each twin answers a refusal as its platform does (its own status, body and headers).
 */
export type SandboxLimits = {
  /** TikTok creator_info queries, per access token a minute. */
  tiktokCreatorInfo: MemoryFixedWindow;
  /** TikTok video and photo inits (one budget for both), per access token a minute. */
  tiktokInit: MemoryFixedWindow;
  /** TikTok status fetches, per access token a minute. */
  tiktokStatus: MemoryFixedWindow;
  /** YouTube uploads (videos.insert), per OAuth client a day. */
  youtubeInserts: MemoryFixedWindow;
  /** Bluesky createSession tries, per PDS and identifier in five minutes. */
  blueskySessions: MemoryFixedWindow;
};

function sandboxLimits(settings: SandboxSettings, clock: Clock): SandboxLimits {
  const perMinute = (limit: number) => new MemoryFixedWindow({ limit, windowSeconds: 60 }, clock);
  return {
    tiktokCreatorInfo: perMinute(settings.tiktok.creatorInfoPerMinute),
    tiktokInit: perMinute(settings.tiktok.initPerMinute),
    tiktokStatus: perMinute(settings.tiktok.statusPerMinute),
    youtubeInserts: new MemoryFixedWindow(
      { limit: settings.google.uploadsPerDay, windowSeconds: 86_400 },
      clock,
    ),
    blueskySessions: new MemoryFixedWindow(
      { limit: settings.bluesky.sessionsPerFiveMinutes, windowSeconds: 300 },
      clock,
    ),
  };
}

/** A fresh sandbox: nothing issued, nothing published. */
export function createSandboxContext(
  settings: SandboxSettings,
  clock: Clock,
  logger: Logger,
): SandboxContext {
  return {
    settings,
    kit: { log: new RequestLog(settings.requestLogSize), faults: new FaultBook(), clock, logger },
    limits: sandboxLimits(settings, clock),
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
  Object.assign(ctx.limits, fresh.limits);
  Object.assign(ctx.google, fresh.google);
  Object.assign(ctx.tiktok, fresh.tiktok);
  Object.assign(ctx.bluesky, fresh.bluesky);
}
