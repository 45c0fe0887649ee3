import type { Logger, Stoppable, TextSealer } from "@app/core";
import type { Database } from "@app/db";
import type { PublisherConfig } from "../config.ts";
import { defaultWorkerId } from "../publishing/index.ts";
import { createWebhookWorker } from "./delivery-worker.ts";
import { createGuardedSender } from "./guarded-post.ts";
import { createWebhookSealer } from "./secrets.ts";
import type { WebhookTargetPolicy } from "./target-policy.ts";

/** What the webhook routes need: the secrets' sealer and where webhooks may go. */
export type WebhookRouteSettings = { sealer: TextSealer; targets: WebhookTargetPolicy };

/** Webhooks as the configuration wires them: the routes' settings, and the worker's start. */
export type WebhookWiring = {
  routes: WebhookRouteSettings;
  /** Starts this process's webhook worker (named as its publishing workers are: `PUBLISHER_WORKER_ID`). */
  startWorker(): Stoppable;
};

/**
 * Webhooks as the configuration wires them (`PUBLISHER_TOKEN_SECRET` seals their secrets,
 * `PUBLISHER_WEBHOOK_*` the rest). The API process and the worker process both build it here; the
 * worker runs wherever the publishing workers run.
 */
export function wireWebhooks(
  config: PublisherConfig,
  context: { db: Database; logger: Logger },
): WebhookWiring {
  const sealer = createWebhookSealer(config.publishing.tokenSecret);
  const targets: WebhookTargetPolicy = { allowPrivate: config.webhooks.allowPrivate };
  return {
    routes: { sealer, targets },
    startWorker() {
      const worker = createWebhookWorker({
        db: context.db,
        logger: context.logger,
        sender: createGuardedSender(targets),
        sealer,
        workerId: config.publishing.workers.workerId ?? defaultWorkerId(),
      });
      return worker.start({
        concurrency: config.webhooks.concurrency,
        pollIntervalMs: config.webhooks.pollIntervalMs,
      });
    },
  };
}
