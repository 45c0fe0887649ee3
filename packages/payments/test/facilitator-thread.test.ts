import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFacilitatorThread } from "../src/index.ts";
import { pay, payerClient, type Rails, startRails } from "./support.ts";

const { payer, payee } = LOCAL_DEV_ACCOUNTS;

describe("the local facilitator on a worker thread", () => {
  let rails: Rails;
  let thread: ReturnType<typeof startFacilitatorThread>;

  beforeAll(async () => {
    rails = await startRails();
    await rails.chain.fund(payer.address, "10");
    thread = startFacilitatorThread({
      rpcUrl: rails.anvil.rpcUrl,
      chainId: rails.chain.chainId,
      signerPrivateKey: LOCAL_DEV_ACCOUNTS.facilitator.privateKey,
    });
  }, 120_000);
  afterAll(async () => {
    await thread?.stop();
    await rails?.stop();
  });

  it("supports exact and upto, and verifies and settles an official client's payment, moving exactly the amount", async () => {
    const supported = await thread.getSupported();
    expect(supported.kinds.map((kind) => kind.scheme).sort()).toEqual(["exact", "upto"]);
    const { payload, requirements } = await pay(
      rails,
      payerClient(rails.chain, payer.privateKey),
      "exact",
      "1000",
    );
    const payeeBefore = await rails.chain.balanceOf(payee.address);
    expect(await thread.verify(payload, requirements)).toMatchObject({ isValid: true, payer: payer.address });
    const settled = await thread.settle(payload, requirements);
    expect(settled).toMatchObject({ success: true, network: rails.chain.network });
    expect(await rails.chain.balanceOf(payee.address)).toBe(payeeBefore + 1000n);
    expect(await thread.settle(payload, requirements)).toMatchObject({ success: false });
  });

  it("fails its pending calls, rather than hanging them, once it is stopped", async () => {
    const other = startFacilitatorThread({
      rpcUrl: rails.anvil.rpcUrl,
      chainId: rails.chain.chainId,
      signerPrivateKey: LOCAL_DEV_ACCOUNTS.facilitator.privateKey,
    });
    await other.stop();
    await expect(other.getSupported()).rejects.toThrow();
  });
});
