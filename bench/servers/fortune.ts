import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "@app/db";
import { loadFortuneConfig } from "@app/fortune";
import { fortuneLocalService as fortuneService } from "@app/fortune/local";
import { startService } from "@app/runtime";

/** What this server tells the bench once it listens. */
export type FortuneServerInfo = {
  url: string;
  dataDir: string;
  chain: { rpcUrl: string; chainId: number; x402Asset: `0x${string}` };
  demoWallet: { address: `0x${string}`; privateKey: `0x${string}` };
};

/**
 * The fortune service as `npm start -w services/fortune` runs it (local chain, PGlite,
 * access log at info to a discarded stdout), on free loopback ports and a temporary
 * DATA_DIR. Stops the service (and with it anvil) when the bench disconnects or signals.
 */
const dataDir = await mkdtemp(join(tmpdir(), "bench-fortune-"));
const config = loadFortuneConfig({
  HOST: "127.0.0.1",
  FORTUNE_PORT: "0",
  FORTUNE_CHAIN_PORT: "0",
  DATA_DIR: dataDir,
  LOG_LEVEL: "info",
});
const db = await openDatabase({ dataDir });
const service = await startService(fortuneService, config, db).catch(async (error: unknown) => {
  await db.close();
  await rm(dataDir, { recursive: true, force: true });
  throw error;
});

let stopping: Promise<void> | undefined;
const shutdown = () => {
  stopping ??= (async () => {
    await service.stop();
    await db.close();
    await rm(dataDir, { recursive: true, force: true });
    process.exit(0);
  })();
  return stopping;
};
process.on("disconnect", () => void shutdown());
process.once("SIGTERM", () => void shutdown());
process.once("SIGINT", () => void shutdown());

const credentials = service.credentials as {
  demoWallet: FortuneServerInfo["demoWallet"];
  chain: FortuneServerInfo["chain"];
};
const info: FortuneServerInfo = {
  url: service.url,
  dataDir,
  chain: credentials.chain,
  demoWallet: credentials.demoWallet,
};
process.send?.(info);
