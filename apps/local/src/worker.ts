/**
 * `npm run worker`: one more process of publishing workers beside a running `npm start`, with the
 * settings the launcher gave the publisher (its data folder, reached through the platform, the
 * sandbox's apps, the local secrets, where the publisher and the sandbox listen).
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { loadConfig, runMain } from "@app/core";
import { embeddedFolder, embeddedOwner } from "@app/db";
import { publisherService, startWorkerProcess } from "@app/publisher";
import { type LocalManifest, launcherVariables, localEnv, withUpstreams } from "./platform.ts";

await runMain(async () => {
  const launcher = loadConfig(launcherVariables, process.env);
  const manifestPath = join(launcher.DATA_DIR, "local.json");
  const running = launcher.DATABASE_URL ? true : await embeddedOwner(embeddedFolder(launcher.DATA_DIR));
  const manifest = running
    ? (JSON.parse(await readFile(manifestPath, "utf8").catch(() => "{}")) as Partial<LocalManifest>)
    : {};
  const services = manifest.services ?? {};
  if (!services.publisher || !services.sandbox) {
    throw new Error(
      `No platform runs on ${launcher.DATA_DIR}: start it first (npm start), then npm run worker.`,
    );
  }
  const started = Object.entries(services).map(([name, { url }]) => ({ name, url }));
  const env = withUpstreams(publisherService, await localEnv(launcher.DATA_DIR, process.env), started);
  return startWorkerProcess({ PUBLISHER_PUBLIC_URL: services.publisher.url, ...env }, "npm run worker");
});
