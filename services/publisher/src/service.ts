import { createTextSealer, type Env, loadConfig } from "@app/core";
import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadPublisherConfig, type PublisherConfig } from "./config.ts";
import { registerConnectionRoutes } from "./connections/routes/index.ts";
import { createRemoteImporter } from "./media/remote-import.ts";
import { createIdentityResolver } from "./platforms/bluesky/identity.ts";
import { createAdapters } from "./platforms/index.ts";
import { createPublishing } from "./publishing/index.ts";
import {
  type PublishingSettings,
  publishingSchema,
  publishingVariables,
  toPublishingSettings,
} from "./publishing/settings.ts";
import { createStorage } from "./storage/index.ts";

/** The API's settings and publishing's, each read by its own half's schema. */
export type PublisherServiceConfig = PublisherConfig & { publishing: PublishingSettings };

/** The environment without publishing's variables: what the API's own schema reads. */
export function apiVariables(env: Env): Env {
  const publishingNames = new Set(Object.keys(publishingVariables));
  return Object.fromEntries(Object.entries(env).filter(([name]) => !publishingNames.has(name)));
}

/** Reads both halves' settings, once (publishing's variables are set apart for its own schema). */
export function loadPublisherServiceConfig(env: Env): PublisherServiceConfig {
  return {
    ...loadPublisherConfig(apiVariables(env)),
    publishing: toPublishingSettings(loadConfig(publishingSchema, env)),
  };
}

/** How the runtime starts the publisher service: storage, publishing (and its workers), the API. */
export const publisherService: ServiceDefinition<PublisherServiceConfig> = {
  name: "publisher",
  title: "Publisher API",
  loadConfig: loadPublisherServiceConfig,
  migrations: new URL("../migrations/", import.meta.url),
  upstreams: { PUBLISHER_PLATFORM_URL: "sandbox" },
  build: async ({ config, db, logger }) => {
    // Where callers and platforms reach this service; known only once it listens when not configured.
    let publicBase = config.publicUrl ?? `http://${config.host}:${config.port}`;
    const storage = createStorage(config.storage, () => publicBase);
    const settings = config.publishing;
    const sealer = createTextSealer(settings.tokenSecret, "publisher.connections");
    const adapters = createAdapters(settings.platforms);
    const mediaTrustedOrigins = [new URL(publicBase).origin, ...settings.trustedMediaOrigins];
    const publishing = createPublishing({
      db,
      logger,
      storage,
      adapters,
      sealer,
      media: { trustedOrigins: mediaTrustedOrigins },
      tuning: { tiktokProcessingTimeoutMs: settings.workers.tiktokProcessingTimeoutMs },
    });
    const app = createApp({
      db,
      logger,
      storage,
      publishing,
      rateLimit: config.rateLimit,
      publishTimeoutMs: config.publishTimeoutMs,
      presignExpiresSeconds: config.presignExpiresSeconds,
      tiktokCreator: (connectionId) => publishing.tiktokCreator(connectionId),
      importRemoteMedia: createRemoteImporter(storage, { trustedOrigins: mediaTrustedOrigins }),
      registerMore: (target, authenticate) =>
        registerConnectionRoutes(target, {
          db,
          sealer,
          adapters,
          publicUrl: publicBase,
          blueskyIdentity: createIdentityResolver(
            { entryService: settings.blueskyService, ...settings.blueskyIdentity },
            adapters.bluesky,
          ),
          authenticate,
        }),
    });
    const workers = settings.runWorkers ? publishing.startWorkers(settings.workers) : undefined;
    return {
      app,
      onListening(url) {
        if (!config.publicUrl) publicBase = url;
      },
      stop: async () => {
        await workers?.stop();
      },
    };
  },
};
