import { cpus } from "node:os";
import { benchEmbeddedDatabase } from "./embedded-db.ts";
import { benchFortune } from "./fortune.ts";
import { benchGateway } from "./gateway.ts";
import { benchHttpStack } from "./http-stack.ts";
import { benchImagePreflight } from "./image-preflight.ts";
import { benchKeyMiddleware } from "./key-middleware.ts";
import { benchPublisher } from "./publisher.ts";
import { benchPublisherWebhooks } from "./publisher-webhooks.ts";

/**
 * `npm run bench`: every benchmark of the platform, each against a baseline measured
 * in the same run. `BENCH_ONLY=http` (the stack and the key middleware), `keys`, `db`, `fortune`, `gateway`, `publisher`, `webhooks` (the
 * publisher's webhooks, also part of `publisher`) or `images` (the publisher's image preflight) runs one section;
 * `BENCH_SECONDS` shortens or lengthens the timed phases; `BENCH_UPLOAD_MB` (512), `BENCH_TARGETS`
 * (10000) and `BENCH_SPREAD_SECONDS` (60) shrink the publisher's uploads and scheduled targets.
 */
const only = process.env.BENCH_ONLY;
process.stdout.write(`Benchmarks on ${process.version}, ${cpus().length} cores\n`);
if (!only || only === "http") await benchHttpStack();
if (!only || only === "http" || only === "keys") await benchKeyMiddleware();
if (!only || only === "db") await benchEmbeddedDatabase();
if (!only || only === "fortune") await benchFortune();
if (!only || only === "gateway") await benchGateway();
if (!only || only === "publisher") await benchPublisher();
if (!only || only === "publisher" || only === "webhooks") await benchPublisherWebhooks();
if (!only || only === "images") await benchImagePreflight();
