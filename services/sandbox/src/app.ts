import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";

/** What the sandbox app is built from. */
export type SandboxDeps = { db: Database; logger: Logger };

/** The sandbox service's Hono app. */
export function createApp(deps: SandboxDeps): ServiceApp {
  return createServiceApp({
    name: "sandbox",
    title: "Platform Sandbox",
    version: "1.0.0",
    description: "Loopback fakes of the platforms' real APIs (TikTok, Google OAuth and YouTube upload).",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
}
