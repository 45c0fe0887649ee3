import { type RunningServer, type ServiceApp, serveApp } from "@app/core";
import type { BlueskyNetworkUrls } from "../demo.ts";
import type { BlueskyNetwork } from "./network.ts";

/** The apps of the sandbox's Bluesky network that listen apart from the sandbox: the PLC directory and the second PDS. */
export type BlueskyNetworkApps = { network: BlueskyNetwork; plc: ServiceApp; pds2: ServiceApp };

export type BlueskyListeners = BlueskyNetworkUrls & { close(): Promise<void> };

/**
 * Serves the PLC directory and the second PDS, each at the root of its own loopback listener
 * (the atproto libraries build `new URL('/<did>', plcUrl)` and `new URL('/xrpc/…', service)`,
 * which drop any path prefix), and records where they listen so DID documents name them.
 */
export async function serveBlueskyNetwork(
  apps: BlueskyNetworkApps,
  options: { host: string; plcPort: number; pds2Port: number },
): Promise<BlueskyListeners> {
  const plc: RunningServer = await serveApp(apps.plc, { host: options.host, port: options.plcPort });
  let pds2: RunningServer;
  try {
    pds2 = await serveApp(apps.pds2, { host: options.host, port: options.pds2Port });
  } catch (error) {
    await plc.close();
    throw error;
  }
  apps.network.origins.plc = plc.url;
  apps.network.origins.pds2 = pds2.url;
  return {
    plcUrl: plc.url,
    pds2Url: pds2.url,
    close: async () => {
      await Promise.all([plc.close(), pds2.close()]);
    },
  };
}
