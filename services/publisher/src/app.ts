import { createServiceApp, type Logger, type ServiceApp } from "@app/core";
import { type Database, pingDatabase } from "@app/db";

/** What the publisher app is built from. */
export type PublisherDeps = { db: Database; logger: Logger };

/** The publisher service's Hono app. */
export function createApp(deps: PublisherDeps): ServiceApp {
  return createServiceApp({
    name: "publisher",
    title: "Publisher API",
    version: "1.0.0",
    description: "Media upload and post publishing, scheduling and queueing to YouTube, TikTok and Bluesky.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
  });
}
