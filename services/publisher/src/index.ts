export { createApp, type PublisherDeps } from "./app.ts";
export { loadPublisherConfig, type PublisherConfig } from "./config.ts";
export { publisherService } from "./service.ts";
