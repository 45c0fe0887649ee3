import { type Clock, createServiceApp, type Logger, type ServiceApp, systemClock } from "@app/core";
import { type Database, pingDatabase } from "@app/db";
import { DatabaseFixedWindow, type IdempotencyStore, type RateRule } from "@app/edge";
import { API_KEY_HEADER, apiKeyGuard, type KeyGuard } from "./auth/guard.ts";
import { DEFAULT_PRESIGN_EXPIRES_SECONDS, DEFAULT_PUBLISH_TIMEOUT_MS, DEFAULT_RATE_LIMIT } from "./config.ts";
import type { Publishing } from "./contracts/publishing.ts";
import type { MediaStorage } from "./contracts/storage.ts";
import { createMediaPreflight } from "./media/preflight/media-preflight.ts";
import type { RemoteImporter } from "./media/remote-import.ts";
import { registerConnectionsList } from "./routes/connections_list.ts";
import type { RouteDeps, TikTokCreatorLookup } from "./routes/deps.ts";
import { registerEventsList } from "./routes/events_list.ts";
import { registerGroupsCreate } from "./routes/groups_create.ts";
import { registerGroupsDelete } from "./routes/groups_delete.ts";
import { registerGroupsList } from "./routes/groups_list.ts";
import { registerGroupsUpdate } from "./routes/groups_update.ts";
import { publisherIdempotencyStore } from "./routes/idempotent-create.ts";
import { registerMediaGet } from "./routes/media_get.ts";
import { registerPostsCancel } from "./routes/posts_cancel.ts";
import { registerPostsDeletePublished } from "./routes/posts_delete_published.ts";
import { registerPostsEvents } from "./routes/posts_events.ts";
import { registerPostsGet } from "./routes/posts_get.ts";
import { registerPostsList } from "./routes/posts_list.ts";
import { registerPostsPublish } from "./routes/posts_publish.ts";
import { registerPostsQueue } from "./routes/posts_queue.ts";
import { registerPostsRetry } from "./routes/posts_retry.ts";
import { registerPostsSchedule } from "./routes/posts_schedule.ts";
import { registerPostsUpdate } from "./routes/posts_update.ts";
import { registerPostsValidate } from "./routes/posts_validate.ts";
import { registerStoragePut, STORAGE_PREFIX } from "./routes/storage_put.ts";
import { registerUploadV1, UPLOAD_V1_PATH } from "./routes/upload_v1.ts";
import { registerUploadV2 } from "./routes/upload_v2.ts";
import { registerWebhooksCreate } from "./routes/webhooks_create.ts";
import { registerWebhooksDelete } from "./routes/webhooks_delete.ts";
import { registerWebhooksDeliveriesList } from "./routes/webhooks_deliveries_list.ts";
import { registerWebhooksDeliveriesResend } from "./routes/webhooks_deliveries_resend.ts";
import { registerWebhooksGet } from "./routes/webhooks_get.ts";
import { registerWebhooksList } from "./routes/webhooks_list.ts";
import { registerWebhooksRotate } from "./routes/webhooks_rotate.ts";
import { registerWebhooksUpdate } from "./routes/webhooks_update.ts";
import { registerWebhookDocs } from "./webhooks/openapi.ts";
import type { WebhookRouteSettings } from "./webhooks/wiring.ts";

/** What the publisher app is built from. */
export type PublisherDeps = {
  db: Database;
  logger: Logger;
  storage: MediaStorage;
  /** The publishing half (its interface): publish-now and cancel. */
  publishing: Publishing;
  clock?: Clock;
  /** Requests per key (a fixed window shared by every instance); the spec's 120 a minute by default. */
  rateLimit?: RateRule;
  publishTimeoutMs?: number;
  presignExpiresSeconds?: number;
  /**
   * A TikTok creator's current privacy options and longest video (creator_info); without it any
   * documented privacy value passes and the platform's own video limit applies.
   */
  tiktokCreator?: TikTokCreatorLookup;
  /**
   * Copies media at other URLs into storage when a post is made, so it is checked like an upload
   * (`createRemoteImporter`); without it such media is left to the workers, unchecked.
   */
  importRemoteMedia?: RemoteImporter;
  /**
   * The creates' `Idempotency-Key`s (`publisherIdempotencyStore`, whose expired keys the service
   * purges); one on `db` by default.
   */
  idempotency?: IdempotencyStore;
  /**
   * Webhook endpoints (`/api/v1/webhooks…`: the secrets' sealer, where webhooks may go; `wireWebhooks`):
   * without it the app has no webhook routes.
   */
  webhooks?: WebhookRouteSettings;
  /**
   * Registers routes built elsewhere (publishing's connect flows) on the app, with the API-key
   * check they need as route middleware (the caller's account as `c.var.caller`, or the 401 / 429
   * / 403 refusal thrown).
   */
  registerMore?: (app: ServiceApp, keyGuard: KeyGuard) => void;
};

/** Routes that stream their own bodies, past the 1 MiB JSON limit: the uploads. */
const ownsBody = (path: string, method: string) =>
  (method === "POST" && path === UPLOAD_V1_PATH) || (method === "PUT" && path.startsWith(STORAGE_PREFIX));

/** The publisher service's Hono app: uploads, connections, groups and posts (publish, schedule, queue). */
export function createApp(deps: PublisherDeps): ServiceApp {
  const clock = deps.clock ?? systemClock;
  const app = createServiceApp({
    name: "publisher",
    title: "Publisher API",
    version: "1.0.0",
    description: "Media upload and post publishing, scheduling and queueing to YouTube, TikTok and Bluesky.",
    logger: deps.logger,
    checkReady: () => pingDatabase(deps.db),
    ownBodyGuard: ownsBody,
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "apiKey",
    in: "header",
    name: API_KEY_HEADER,
    description:
      "An API key, created with `npm run publisher -- keys create`; scopes posts:read, posts:write, media:write",
  });
  const routeDeps: RouteDeps = {
    db: deps.db,
    clock,
    logger: deps.logger,
    storage: deps.storage,
    publishing: deps.publishing,
    limiter: new DatabaseFixedWindow(deps.db, {
      namespace: "publisher",
      rule: deps.rateLimit ?? DEFAULT_RATE_LIMIT,
      clock,
    }),
    publishTimeoutMs: deps.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS,
    presignExpiresSeconds: deps.presignExpiresSeconds ?? DEFAULT_PRESIGN_EXPIRES_SECONDS,
    tiktokCreator: deps.tiktokCreator,
    mediaPreflight: createMediaPreflight({ storage: deps.storage, importRemote: deps.importRemoteMedia }),
    idempotency:
      deps.idempotency ??
      publisherIdempotencyStore(deps.db, clock, deps.publishTimeoutMs ?? DEFAULT_PUBLISH_TIMEOUT_MS),
  };
  registerUploadV1(app, routeDeps);
  registerUploadV2(app, routeDeps);
  const { selfServedUploads } = deps.storage;
  if (selfServedUploads) registerStoragePut(app, routeDeps, selfServedUploads);
  registerMediaGet(app, routeDeps);
  registerConnectionsList(app, routeDeps);
  registerGroupsList(app, routeDeps);
  registerGroupsCreate(app, routeDeps);
  registerGroupsUpdate(app, routeDeps);
  registerGroupsDelete(app, routeDeps);
  registerPostsPublish(app, routeDeps);
  registerPostsSchedule(app, routeDeps);
  registerPostsQueue(app, routeDeps);
  registerPostsList(app, routeDeps);
  registerPostsGet(app, routeDeps);
  registerPostsCancel(app, routeDeps);
  registerPostsUpdate(app, routeDeps);
  registerPostsValidate(app, routeDeps);
  registerPostsRetry(app, routeDeps);
  registerPostsDeletePublished(app, routeDeps);
  registerPostsEvents(app, routeDeps);
  registerEventsList(app, routeDeps);
  const webhookDeps = deps.webhooks && { ...routeDeps, webhooks: deps.webhooks };
  if (webhookDeps) {
    registerWebhooksCreate(app, webhookDeps);
    registerWebhooksList(app, webhookDeps);
    registerWebhooksGet(app, webhookDeps);
    registerWebhooksUpdate(app, webhookDeps);
    registerWebhooksDelete(app, webhookDeps);
    registerWebhooksRotate(app, webhookDeps);
    registerWebhooksDeliveriesList(app, webhookDeps);
    registerWebhooksDeliveriesResend(app, webhookDeps);
    registerWebhookDocs(app);
  }
  deps.registerMore?.(app, (scope) => apiKeyGuard(routeDeps, scope));
  return app;
}
