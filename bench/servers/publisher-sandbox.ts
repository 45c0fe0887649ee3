import { createLogger, serveApp } from "@app/core";
import type { Database } from "@app/db";
import { createSandbox, defaultSandboxSettings, serveBlueskyNetwork } from "@app/sandbox";

/** What the sandbox bench server reports: where the platform twins listen. */
export type PublisherSandboxInfo = { url: string; plcUrl: string };

/** The twins keep their state in memory; the database only answers `/readyz`, which the bench never calls. */
const noDatabase = { query: async () => [] } as unknown as Database;

/**
 * The platform sandbox (the publisher's platforms) in its own process on a free loopback port,
 * logging warnings only: it stands in for the platforms, whose cost is not the publisher's.
 * Stops when the bench disconnects or signals.
 */
const { app, bluesky } = createSandbox({
  db: noDatabase,
  logger: createLogger({ name: "sandbox", level: "warn" }),
  settings: defaultSandboxSettings(),
});
const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
bluesky.network.origins.default = server.url;
const network = await serveBlueskyNetwork(bluesky, { host: "127.0.0.1", plcPort: 0, pds2Port: 0 });
const shutdown = async () => {
  await Promise.all([server.close(), network.close()]);
  process.exit(0);
};
process.on("disconnect", () => void shutdown());
process.once("SIGTERM", () => void shutdown());
process.send?.({ url: server.url, plcUrl: network.plcUrl } satisfies PublisherSandboxInfo);
