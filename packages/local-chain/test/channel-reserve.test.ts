/**
 * The local TIP-1034 reserve install and its RPC shim (no mppx server involved).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHANNEL_RESERVE_ABI, CHANNEL_RESERVE_ADDRESS, PATH_USD_ADDRESS } from "@app/payments";
import { createPublicClient, encodeFunctionData, http, pad, toFunctionSelector, zeroAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { installChannelReserve, startAnvil, startTempoShim } from "../src/index.ts";

const CACHE_DIR = join(fileURLToPath(new URL("..", import.meta.url)), ".data", "test-cache");
const stateDir = mkdtempSync(join(tmpdir(), "mpp-reserve-"));
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

describe("installChannelReserve", () => {
  it("is idempotent, also on a chain restored from a state file", async () => {
    const stateFile = join(stateDir, "state.json");
    const first = await startAnvil({ stateFile, stateIntervalSeconds: 0 });
    try {
      expect(await installChannelReserve({ anvilRpcUrl: first.rpcUrl, cacheDir: CACHE_DIR })).toBe(true);
      expect(await installChannelReserve({ anvilRpcUrl: first.rpcUrl, cacheDir: CACHE_DIR })).toBe(false);
    } finally {
      await first.stop();
    }
    const restored = await startAnvil({ stateFile, stateIntervalSeconds: 0 });
    try {
      const code = await createPublicClient({ transport: http(restored.rpcUrl) }).getCode({
        address: CHANNEL_RESERVE_ADDRESS,
      });
      expect(code?.length).toBeGreaterThan(2);
      expect(await installChannelReserve({ anvilRpcUrl: restored.rpcUrl, cacheDir: CACHE_DIR })).toBe(false);
    } finally {
      await restored.stop();
    }
  });
});

describe("startTempoShim", () => {
  it("supplies the open context only through the shim; anvil alone reverts the open", async () => {
    const anvil = await startAnvil();
    const shim = await startTempoShim({ anvilRpcUrl: anvil.rpcUrl, host: "127.0.0.1" });
    try {
      await installChannelReserve({ anvilRpcUrl: anvil.rpcUrl, cacheDir: CACHE_DIR });
      const payer = privateKeyToAccount(generatePrivateKey()).address;
      const open = encodeFunctionData({
        abi: CHANNEL_RESERVE_ABI,
        functionName: "open",
        args: [
          privateKeyToAccount(generatePrivateKey()).address,
          zeroAddress,
          PATH_USD_ADDRESS,
          1000n,
          pad("0x1"),
          zeroAddress,
        ],
      });
      const call = async (url: string) => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "eth_call",
            params: [{ from: payer, to: CHANNEL_RESERVE_ADDRESS, data: open }, "latest"],
          }),
        });
        return (await res.json()) as { error?: { data?: string } };
      };
      // Straight to anvil there is no open context; through the shim the open gets past that check
      // and fails later, on the unfunded payer's transfer.
      const notSet = toFunctionSelector("ExpiringNonceHashNotSet()");
      expect((await call(anvil.rpcUrl)).error?.data).toBe(notSet);
      const viaShim = await call(shim.rpcUrl);
      expect(viaShim.error?.data).toBeTruthy();
      expect(viaShim.error?.data).not.toBe(notSet);
      expect(shim.stats.simulationsOverridden).toBe(1);
      await expect(startTempoShim({ anvilRpcUrl: anvil.rpcUrl, host: "0.0.0.0" })).rejects.toThrow(
        /loopback/,
      );
    } finally {
      await shim.stop();
      await anvil.stop();
    }
  });
});
