import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { loadFortuneConfig } from "../src/config.ts";
import { type ProvidedChain, startRails } from "../src/rails.ts";
import { fortuneService } from "../src/service.ts";

let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "fortune-provided-"));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** A chain nobody runs: the rails only need its values until a payment comes. */
function fakeChain(stopped: string[]): ProvidedChain {
  return {
    payTo: `0x${"b2".repeat(20)}`,
    x402: {
      rpcUrl: "http://127.0.0.1:1/x402",
      chainId: 31337,
      network: "eip155:31337",
      asset: { address: `0x${"a1".repeat(20)}`, name: "USD Coin", version: "2", decimals: 6 },
      facilitatorKey: `0x${"e5".repeat(32)}`,
    },
    mpp: {
      rpcUrl: "http://127.0.0.1:1/tempo",
      chainId: 31337,
      currency: `0x${"c3".repeat(20)}`,
      decimals: 6,
      operatorKey: `0x${"d4".repeat(32)}`,
      secretKey: "a-provided-secret-of-at-least-thirty-two-chars",
    },
    credentials: { chain: { rpcUrl: "http://127.0.0.1:1/x402" } },
    stop: async () => {
      stopped.push("chain");
    },
  };
}

describe("the service is given its local chain, never starts one", () => {
  test("the production service refuses local rails and says how to start them", async ({ db }) => {
    const config = loadFortuneConfig({ DATA_DIR: dataDir });
    expect(config.rails.mode).toBe("local");
    await expect(fortuneService.build({ config, db, logger: silentLogger() })).rejects.toThrow(
      /FORTUNE_RAILS=local needs a local chain.*npm start.*FORTUNE_RAILS=hosted/,
    );
  });

  test("a provided chain is used as given, on the service's settings, and stopped with the rails", async ({
    db,
  }) => {
    const config = loadFortuneConfig({
      DATA_DIR: dataDir,
      FORTUNE_CHAIN_PORT: "0",
      FORTUNE_CHAIN_ID: "31337",
    });
    const stopped: string[] = [];
    const asked: unknown[] = [];
    const rails = await startRails(config, db, silentLogger(), {}, async (settings) => {
      asked.push(settings.rails);
      return fakeChain(stopped);
    });
    expect(asked).toEqual([{ mode: "local", chainPort: 0, chainId: 31337 }]);
    expect(rails.x402.network).toBe("eip155:31337");
    expect(rails.mppCurrency).toBe(`0x${"c3".repeat(20)}`);
    expect(rails.secret).toBe("a-provided-secret-of-at-least-thirty-two-chars");
    expect(rails.credentials).toEqual({ chain: { rpcUrl: "http://127.0.0.1:1/x402" } });
    await rails.stop();
    expect(stopped).toEqual(["chain"]);
  });
});
