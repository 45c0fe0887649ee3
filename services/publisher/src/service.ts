import { systemClock } from "@app/core";
import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadPublisherConfig, type PublisherConfig, publicBaseOf } from "./config.ts";
import { registerConnectionRoutes } from "./connections/routes/index.ts";
import { createRemoteImporter } from "./media/remote-import.ts";
import { createIdentityResolver } from "./platforms/bluesky/identity.ts";
import { wirePublishing } from "./publishing/wiring.ts";
import { publisherIdempotencyStore, startIdempotencyPurge } from "./routes/idempotent-create.ts";
import { wireWebhooks } from "./webhooks/wiring.ts";

/** How the runtime starts the publisher service: storage, publishing (and its workers), the API. */
export const publisherService: ServiceDefinition<PublisherConfig> = {
  name: "publisher",
  title: "Publisher API",
  loadConfig: loadPublisherConfig,
  migrations: new URL("../migrations/", import.meta.url),
  upstreams: { PUBLISHER_PLATFORM_URL: "sandbox" },
  build: async ({ config, db, logger }) => {
    // Where callers and platforms reach this service; known only once it listens when not configured.
    let publicBase = publicBaseOf(config);
    const settings = config.publishing;
    const { storage, sealer, adapters, mediaTrustedOrigins, publishing } = wirePublishing(config, {
      db,
      logger,
      publicBase: () => publicBase,
    });
    const idempotency = publisherIdempotencyStore(db, systemClock, config.publishTimeoutMs);
    const webhooks = wireWebhooks(config, { db, logger });
    const app = createApp({
      db,
      logger,
      storage,
      publishing,
      idempotency,
      rateLimit: config.rateLimit,
      publishTimeoutMs: config.publishTimeoutMs,
      presignExpiresSeconds: config.presignExpiresSeconds,
      tiktokCreator: (connectionId) => publishing.tiktokCreator(connectionId),
      importRemoteMedia: createRemoteImporter(storage, { trustedOrigins: mediaTrustedOrigins }),
      webhooks: webhooks.routes,
      registerMore: (target, keyGuard) =>
        registerConnectionRoutes(target, {
          db,
          sealer,
          adapters,
          publicUrl: publicBase,
          blueskyIdentity: createIdentityResolver(
            { entryService: settings.blueskyService, ...settings.blueskyIdentity },
            adapters.bluesky,
          ),
          keyGuard,
        }),
    });
    const workers = settings.runWorkers ? publishing.startWorkers(settings.workers) : undefined;
    const webhookWorker = settings.runWorkers ? webhooks.startWorker() : undefined;
    const stopIdempotencyPurge = startIdempotencyPurge(idempotency, logger);
    return {
      app,
      onListening(url) {
        if (!config.publicUrl) publicBase = url;
      },
      stop: async () => {
        stopIdempotencyPurge();
        await workers?.stop();
        await webhookWorker?.stop();
      },
    };
  },
};
