import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type AnvilHandle, bootstrapLocalChain, LOCAL_DEV_ACCOUNTS, startAnvil } from "@app/local-chain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLocalFacilitator, X402_UPTO_PERMIT2_PROXY_ADDRESS } from "../src/index.ts";
import { payerClient, TEST_CACHE_DIR } from "./support.ts";

const { deployer, payer, payee, facilitator } = LOCAL_DEV_ACCOUNTS;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("anvil state persistence (--network tempo) across a restart", () => {
  let dir: string;
  let anvil: AnvilHandle | undefined;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "payments-state-"));
  });
  afterAll(async () => {
    await anvil?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("keeps balances, token code and proxies; bootstrap then reuses them and payments still settle", async () => {
    const stateFile = join(dir, "chain", "anvil-state.json");
    anvil = await startAnvil({ stateFile });
    const first = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: deployer.privateKey,
      cacheDir: TEST_CACHE_DIR,
    });
    expect(first.deployedNow).toBe(true);
    await first.fund(payer.address, "3");
    const payerBalance = await first.balanceOf(payer.address);
    const tokenCode = await first.publicClient.getCode({ address: first.asset.address });
    const firstPid = anvil.pid;
    await anvil.stop();
    await anvil.stop(); // idempotent
    expect(alive(firstPid)).toBe(false);
    expect(statSync(stateFile).size).toBeGreaterThan(0);

    anvil = await startAnvil({ stateFile });
    expect(anvil.pid).not.toBe(firstPid);
    // Before any bootstrap, the restored chain already has everything.
    const probe = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: deployer.privateKey,
      cacheDir: TEST_CACHE_DIR,
    });
    expect(probe.deployedNow).toBe(false);
    expect(probe.asset.address).toBe(first.asset.address);
    expect(await probe.publicClient.getCode({ address: first.asset.address })).toBe(tokenCode);
    expect(
      (await probe.publicClient.getCode({ address: X402_UPTO_PERMIT2_PROXY_ADDRESS }))?.length,
    ).toBeGreaterThan(100);
    expect(await probe.balanceOf(payer.address)).toBe(payerBalance);

    // The restored chain still settles a fresh exact payment.
    const local = createLocalFacilitator({
      rpcUrl: anvil.rpcUrl,
      chainId: probe.chainId,
      signerPrivateKey: facilitator.privateKey,
    });
    const requirements = {
      scheme: "exact",
      network: probe.network,
      asset: probe.asset.address,
      amount: "1500",
      payTo: payee.address,
      maxTimeoutSeconds: 120,
      extra: { name: probe.asset.name, version: probe.asset.version },
    };
    const payload = await payerClient(probe, payer.privateKey).createPaymentPayload({
      x402Version: 2,
      resource: { url: "http://127.0.0.1/state" },
      accepts: [requirements],
    });
    const payeeBefore = await probe.balanceOf(payee.address);
    expect((await local.settle(payload, requirements)).success).toBe(true);
    expect(await probe.balanceOf(payee.address)).toBe(payeeBefore + 1500n);
    expect(await probe.balanceOf(payer.address)).toBe(payerBalance - 1500n);
  }, 120_000); // may compile cold on a fresh checkout
});
