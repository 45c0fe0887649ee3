import type { Logger, TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { PublisherConfig } from "../config.ts";
import { createConnectionSealer } from "../connections/sealer.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import { type Adapters, createAdapters } from "../platforms/index.ts";
import { createStorage } from "../storage/index.ts";
import { createPublishing, type PublishingService } from "./index.ts";

/** Publishing, and what the API's routes share with it. */
export type PublishingWiring = {
  storage: MediaStorage;
  sealer: TextSealer;
  adapters: Adapters;
  /** Where media is read without the public-address check: this service, and the configured origins. */
  mediaTrustedOrigins: string[];
  publishing: PublishingService;
};

/**
 * Publishing as the configuration wires it: storage, the platforms' adapters, the connection
 * sealer, the trusted media origins. The API process and the worker process both build it here.
 * `publicBase` is this service's base URL, asked at each use (a process that listens on a port
 * the system chooses knows it only once it listens).
 */
export function wirePublishing(
  config: PublisherConfig,
  context: { db: Database; logger: Logger; publicBase: () => string },
): PublishingWiring {
  const settings = config.publishing;
  const storage = createStorage(config.storage, context.publicBase);
  const sealer = createConnectionSealer(settings.tokenSecret);
  const adapters = createAdapters(settings.platforms);
  const mediaTrustedOrigins = [new URL(context.publicBase()).origin, ...settings.trustedMediaOrigins];
  const publishing = createPublishing({
    db: context.db,
    logger: context.logger,
    storage,
    adapters,
    sealer,
    media: { trustedOrigins: mediaTrustedOrigins },
    tuning: { tiktokProcessingTimeoutMs: settings.workers.tiktokProcessingTimeoutMs },
  });
  return { storage, sealer, adapters, mediaTrustedOrigins, publishing };
}
