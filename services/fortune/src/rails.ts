import { join } from "node:path";
import type { Logger } from "@app/core";
import {
  bootstrapLocalChain,
  createHostedFacilitator,
  createLocalFacilitator,
  LOCAL_DEV_ACCOUNTS,
  PATH_USD_ADDRESS,
  startAnvil,
} from "@app/payments";
import type { FortuneConfig } from "./config.ts";
import { X402Rail } from "./payments/x402-rail.ts";

/** The payment rails the service runs on, and what `npm start` tells the user about them. */
export type Rails = {
  x402: X402Rail;
  mppCurrency: `0x${string}`;
  credentials: Record<string, unknown>;
  stop(): Promise<void>;
};

/** How much the local demo wallet is given at first start (LocalUSD). */
const DEMO_FUNDS_USD = "100";

/**
 * Local mode: starts anvil (state kept under `DATA_DIR/chain`), installs our token
 * and the Permit2 proxies, runs an in-process facilitator and funds the demo payer.
 */
async function localRails(
  config: FortuneConfig & { rails: { mode: "local" } },
  logger: Logger,
): Promise<Rails> {
  const dir = join(config.dataDir, "chain");
  const anvil = await startAnvil({
    host: "127.0.0.1",
    port: config.rails.chainPort,
    chainId: config.rails.chainId,
    stateFile: join(dir, "anvil-state.json"),
  });
  try {
    const chain = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: LOCAL_DEV_ACCOUNTS.deployer.privateKey,
      cacheDir: join(dir, "contracts"),
    });
    const facilitator = createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      chainId: chain.chainId,
      signerPrivateKey: LOCAL_DEV_ACCOUNTS.facilitator.privateKey,
    });
    const payer = LOCAL_DEV_ACCOUNTS.payer;
    if ((await chain.balanceOf(payer.address)) === 0n) {
      await chain.fund(payer.address, DEMO_FUNDS_USD);
      await chain.approvePermit2(payer.privateKey);
    }
    logger.info({ rpcUrl: anvil.rpcUrl, asset: chain.asset.address }, "local chain ready");
    return {
      x402: new X402Rail({
        facilitator,
        network: chain.network,
        asset: { ...chain.asset },
        payTo: LOCAL_DEV_ACCOUNTS.payee.address,
      }),
      mppCurrency: PATH_USD_ADDRESS,
      credentials: {
        demoWallet: { address: payer.address, privateKey: payer.privateKey, note: "local chain only" },
        chain: { rpcUrl: anvil.rpcUrl, chainId: chain.chainId, asset: chain.asset.address },
      },
      stop: () => anvil.stop(),
    };
  } catch (error) {
    await anvil.stop();
    throw error;
  }
}

/** Hosted mode: a facilitator URL and the networks from config; nothing local is started. */
function hostedRails(config: FortuneConfig & { rails: { mode: "hosted" } }): Rails {
  const rails = config.rails;
  const token = rails.facilitatorToken;
  return {
    x402: new X402Rail({
      facilitator: createHostedFacilitator({
        url: rails.facilitatorUrl,
        authHeaders: token ? { Authorization: `Bearer ${token}` } : undefined,
      }),
      network: rails.network,
      asset: { ...rails.asset, decimals: 6 },
      payTo: rails.payTo,
    }),
    mppCurrency: rails.mpp.currency,
    credentials: {},
    stop: async () => undefined,
  };
}

/** The rails the configuration selects. */
export function startRails(config: FortuneConfig, logger: Logger): Promise<Rails> {
  return config.rails.mode === "local"
    ? localRails(config as FortuneConfig & { rails: { mode: "local" } }, logger)
    : Promise.resolve(hostedRails(config as FortuneConfig & { rails: { mode: "hosted" } }));
}
