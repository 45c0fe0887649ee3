export { createApp, type PublisherDeps } from "./app.ts";
export { loadPublisherConfig, type PublisherConfig } from "./config.ts";
export { createConnectionSealer } from "./connections/sealer.ts";
export { startWorkerProcess } from "./publishing/worker-process.ts";
export { publisherService } from "./service.ts";
