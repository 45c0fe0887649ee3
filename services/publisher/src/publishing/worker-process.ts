import { createLogger, type Env, routeConsoleTo, type Stoppable } from "@app/core";
import { openDatabase } from "@app/db";
import { migrateService } from "@app/runtime";
import { loadPublisherConfig, publicBaseOf } from "../config.ts";
import { publisherService } from "../service.ts";
import { wireWebhooks } from "../webhooks/wiring.ts";
import { wirePublishing } from "./wiring.ts";

/**
 * A process of publishing workers (and the webhook worker) only, on the configured database: PostgreSQL, or the embedded
 * folder through the process that owns it (`holder` names this one to the others).
 */
export async function startWorkerProcess(env: Env, holder: string): Promise<Stoppable> {
  const config = loadPublisherConfig(env);
  const logger = createLogger({ name: "publisher-worker", level: config.logLevel });
  routeConsoleTo(logger);
  const db = await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir }, { holder });
  await migrateService(publisherService, db);
  const publicBase = publicBaseOf(config);
  const { publishing } = wirePublishing(config, { db, logger, publicBase: () => publicBase });
  const { workers: options } = config.publishing;
  const workers = publishing.startWorkers(options);
  const webhookWorker = wireWebhooks(config, { db, logger }).startWorker();
  logger.info({ concurrency: options.concurrency }, "publisher workers running");
  return {
    async stop() {
      await workers.stop();
      await webhookWorker.stop();
      await db.close();
    },
  };
}
