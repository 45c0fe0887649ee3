import type { ServiceDefinition } from "@app/runtime";
import { createApp } from "./app.ts";
import { loadPublisherConfig, type PublisherConfig } from "./config.ts";

/** How the runtime starts the publisher service. */
export const publisherService: ServiceDefinition<PublisherConfig> = {
  name: "publisher",
  title: "Publisher API",
  loadConfig: loadPublisherConfig,
  migrations: new URL("../migrations/", import.meta.url),
  build: async ({ db, logger }) => ({ app: createApp({ db, logger }) }),
};
