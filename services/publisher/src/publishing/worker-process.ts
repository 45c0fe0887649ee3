import {
  createLogger,
  createTextSealer,
  type Env,
  loadConfig,
  routeConsoleTo,
  type Stoppable,
} from "@app/core";
import { openDatabase } from "@app/db";
import { migrateService } from "@app/runtime";
import { loadPublisherConfig } from "../config.ts";
import { createAdapters } from "../platforms/index.ts";
import { publisherService } from "../service.ts";
import { createStorage } from "../storage/index.ts";
import { createPublishing } from "./index.ts";
import { publishingSchema, publishingVariables, toPublishingSettings } from "./settings.ts";

/** Both halves' settings: the service's own, and publishing's (until config.ts holds them too). */
export function loadWorkerConfig(env: Env) {
  const mine = new Set(Object.keys(publishingVariables));
  const rest = Object.fromEntries(Object.entries(env).filter(([name]) => !mine.has(name)));
  return {
    service: loadPublisherConfig(rest),
    publishing: toPublishingSettings(loadConfig(publishingSchema, env)),
  };
}

/**
 * A process of publishing workers only, on the configured database: PostgreSQL, or the embedded
 * folder through the process that owns it (`holder` names this one to the others).
 */
export async function startWorkerProcess(env: Env, holder: string): Promise<Stoppable> {
  const { service, publishing: settings } = loadWorkerConfig(env);
  const logger = createLogger({ name: "publisher-worker", level: service.logLevel });
  routeConsoleTo(logger);
  const db = await openDatabase({ url: service.databaseUrl, dataDir: service.dataDir }, { holder });
  await migrateService(publisherService, db);
  const publicUrl = service.publicUrl ?? `http://${service.host}:${service.port}`;
  const storage = createStorage(service.storage, () => publicUrl);
  const publishing = createPublishing({
    db,
    logger,
    storage,
    adapters: createAdapters(settings.platforms),
    sealer: createTextSealer(settings.tokenSecret, "publisher.connections"),
    media: { trustedOrigins: [new URL(publicUrl).origin, ...settings.trustedMediaOrigins] },
    tuning: { tiktokProcessingTimeoutMs: settings.workers.tiktokProcessingTimeoutMs },
  });
  const workers = publishing.startWorkers(settings.workers);
  logger.info({ concurrency: settings.workers.concurrency }, "publisher workers running");
  return {
    async stop() {
      await workers.stop();
      await db.close();
    },
  };
}
