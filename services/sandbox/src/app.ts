import { type Clock, createServiceApp, type Logger, type ServiceApp, systemClock } from "@app/core";
import { type Database, pingDatabase } from "@app/db";
import { registerSandboxControls } from "./admin/controls.ts";
import { registerSandboxFaults } from "./admin/faults.ts";
import { registerSandboxInspection } from "./admin/inspect.ts";
import { registerBlueskyRecords } from "./bluesky/records.ts";
import { registerBlueskySession } from "./bluesky/session.ts";
import { registerBlueskyUploadBlob, UPLOAD_BLOB_PATH } from "./bluesky/upload-blob.ts";
import type { SandboxSettings } from "./config.ts";
import { createSandboxContext, type SandboxContext } from "./context.ts";
import { registerGoogleAuthorize } from "./google/oauth-authorize.ts";
import { registerGoogleToken } from "./google/oauth-token.ts";
import { registerYouTubeRead } from "./google/youtube-read.ts";
import { registerYouTubeUploadChunk } from "./google/youtube-upload-chunk.ts";
import {
  registerYouTubeUploadStart,
  UPLOAD_PATH as YOUTUBE_UPLOAD_PATH,
} from "./google/youtube-upload-start.ts";
import { registerTikTokContentInit } from "./tiktok/content-init.ts";
import { registerTikTokCreatorInfo } from "./tiktok/creator-info.ts";
import { registerTikTokAuthorize } from "./tiktok/oauth-authorize.ts";
import { registerTikTokToken } from "./tiktok/oauth-token.ts";
import { registerTikTokStatusFetch } from "./tiktok/status-fetch.ts";
import { registerTikTokUpload } from "./tiktok/upload.ts";
import { registerTikTokVideoInit, UPLOAD_PATH as TIKTOK_UPLOAD_PATH } from "./tiktok/video-init.ts";

/** What the sandbox app is built from. */
export type SandboxDeps = {
  db: Database;
  logger: Logger;
  settings: SandboxSettings;
  clock?: Clock;
};

/** Upload routes stream their bodies and check sizes themselves, past the platform's 1 MiB JSON limit. */
const ownBodyGuard = (path: string, method: string) =>
  (method === "PUT" && (path === YOUTUBE_UPLOAD_PATH || path === TIKTOK_UPLOAD_PATH)) ||
  (method === "POST" && path === UPLOAD_BLOB_PATH);

/**
 * The sandbox's Hono app and its state: the twins of Google OAuth + YouTube upload, TikTok's
 * Login Kit and Content Posting API, and a Bluesky PDS's XRPC endpoints, each at the platform's
 * own paths, plus the `/_sandbox` controls (request log, faults, published content, tokens).
 */
export function createSandbox(deps: SandboxDeps): { app: ServiceApp; context: SandboxContext } {
  const app = createServiceApp({
    name: "sandbox",
    title: "Platform Sandbox",
    version: "1.0.0",
    description:
      "Loopback twins of the platforms' real APIs: Google OAuth and YouTube resumable upload, TikTok Login Kit and Content Posting API, Bluesky PDS (XRPC). Controls under /_sandbox.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
    ownBodyGuard,
  });
  const context = createSandboxContext(deps.settings, deps.clock ?? systemClock, deps.logger);
  for (const register of [
    registerGoogleAuthorize,
    registerGoogleToken,
    registerYouTubeUploadStart,
    registerYouTubeUploadChunk,
    registerYouTubeRead,
    registerTikTokAuthorize,
    registerTikTokToken,
    registerTikTokCreatorInfo,
    registerTikTokVideoInit,
    registerTikTokContentInit,
    registerTikTokUpload,
    registerTikTokStatusFetch,
    registerBlueskySession,
    registerBlueskyUploadBlob,
    registerBlueskyRecords,
    registerSandboxInspection,
    registerSandboxFaults,
    registerSandboxControls,
  ]) {
    register(app, context);
  }
  return { app, context };
}

/** The sandbox service's Hono app. */
export function createApp(deps: SandboxDeps): ServiceApp {
  return createSandbox(deps).app;
}
