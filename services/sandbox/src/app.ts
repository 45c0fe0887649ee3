import { type Clock, createServiceApp, type Logger, type ServiceApp, systemClock } from "@app/core";
import { type Database, pingDatabase } from "@app/db";
import { registerSandboxControls } from "./admin/controls.ts";
import { registerSandboxFaults } from "./admin/faults.ts";
import { registerSandboxInspection } from "./admin/inspect.ts";
import type { BlueskyNetworkApps } from "./bluesky/listeners.ts";
import { createBlueskyNetwork, type PdsHost } from "./bluesky/network.ts";
import { registerBlueskyPds, UPLOAD_BLOB_PATH } from "./bluesky/pds.ts";
import type { SandboxSettings } from "./config.ts";
import { createSandboxContext, type SandboxContext } from "./context.ts";
import { registerGoogleAuthorize } from "./google/oauth-authorize.ts";
import { registerGoogleToken } from "./google/oauth-token.ts";
import { registerYouTubeDelete } from "./google/youtube-delete.ts";
import { registerYouTubeRead } from "./google/youtube-read.ts";
import { registerYouTubeUploadChunk } from "./google/youtube-upload-chunk.ts";
import {
  registerYouTubeUploadStart,
  UPLOAD_PATH as YOUTUBE_UPLOAD_PATH,
} from "./google/youtube-upload-start.ts";
import { mountedOperations } from "./kit/operations.ts";
import { createPlcDirectory, PLC_RESOLVE } from "./plc/directory.ts";
import { registerTikTokApiFallback, TIKTOK_API_PREFIX } from "./tiktok/api-fallback.ts";
import { registerTikTokContentInit } from "./tiktok/content-init.ts";
import { registerTikTokCreatorInfo } from "./tiktok/creator-info.ts";
import { registerTikTokAuthorize } from "./tiktok/oauth-authorize.ts";
import { registerTikTokRevoke } from "./tiktok/oauth-revoke.ts";
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
  (method === "POST" && path === YOUTUBE_UPLOAD_PATH) ||
  path.startsWith(TIKTOK_API_PREFIX) ||
  (method === "POST" && path === UPLOAD_BLOB_PATH);

/**
 * The second PDS's own app (a self-hosted PDS): the same XRPC methods, for the accounts it hosts,
 * sharing the sandbox's state, request log and faults.
 */
function createSecondPds(deps: SandboxDeps, context: SandboxContext, host: PdsHost): ServiceApp {
  const app = createServiceApp({
    name: "sandbox-pds2",
    title: "Sandbox second PDS",
    version: "1.0.0",
    description: "A second Bluesky PDS twin (a self-hosted PDS), for accounts not on the default one.",
    logger: deps.logger,
    checkReady: async () => {},
    ownBodyGuard: (path, method) => method === "POST" && path === UPLOAD_BLOB_PATH,
  });
  registerBlueskyPds(app, context, host);
  return app;
}

/**
 * The sandbox's Hono app and its state: the twins of Google OAuth + YouTube upload, TikTok's
 * Login Kit and Content Posting API, and a Bluesky PDS's XRPC endpoints, each at the platform's
 * own paths, plus the `/_sandbox` controls (request log, faults, published content, tokens).
 * `bluesky` holds the apps that listen apart: the PLC directory and the second PDS
 * (`serveBlueskyNetwork` serves them).
 */
export function createSandbox(deps: SandboxDeps): {
  app: ServiceApp;
  context: SandboxContext;
  bluesky: BlueskyNetworkApps;
} {
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
    registerYouTubeDelete,
    registerTikTokAuthorize,
    registerTikTokToken,
    registerTikTokRevoke,
    registerTikTokCreatorInfo,
    registerTikTokVideoInit,
    registerTikTokContentInit,
    registerTikTokUpload,
    registerTikTokStatusFetch,
    registerTikTokApiFallback,
    registerSandboxInspection,
    registerSandboxFaults,
    registerSandboxControls,
  ]) {
    register(app, context);
  }
  const network = createBlueskyNetwork();
  registerBlueskyPds(app, context, { name: "default", network });
  const plc = createPlcDirectory(context.kit, network, deps.logger);
  // The PLC directory's operation is named with the others, so faults can target it.
  mountedOperations.get(app)?.set(PLC_RESOLVE.operation, PLC_RESOLVE);
  const pds2 = createSecondPds(deps, context, { name: "pds2", network });
  return { app, context, bluesky: { network, plc, pds2 } };
}

/** The sandbox service's Hono app. */
export function createApp(deps: SandboxDeps): ServiceApp {
  return createSandbox(deps).app;
}
