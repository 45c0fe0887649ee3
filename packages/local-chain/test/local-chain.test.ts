import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  PERMIT2_ADDRESS,
  X402_EXACT_PERMIT2_PROXY_ADDRESS,
  X402_UPTO_PERMIT2_PROXY_ADDRESS,
} from "@app/payments";
import {
  uptoPermit2WitnessTypes,
  PERMIT2_ADDRESS as X402_PERMIT2_ADDRESS,
  x402ExactPermit2ProxyABI,
  x402ExactPermit2ProxyAddress,
  x402UptoPermit2ProxyABI,
  x402UptoPermit2ProxyAddress,
} from "@x402/evm";
import { createWalletClient, type Hex, http, keccak256, maxUint256, parseSignature, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AnvilHandle,
  bootstrapLocalChain,
  compileContracts,
  LOCAL_DEV_ACCOUNTS,
  type LocalChain,
  startAnvil,
} from "../src/index.ts";
import { TEST_CACHE_DIR } from "./support.ts";

const { deployer, payer, payee, otherPayer } = LOCAL_DEV_ACCOUNTS;

const AUTH_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

describe("contract compilation", () => {
  it("compiles cold, then serves the same artifacts from the disk cache", async () => {
    const dir = mkdtempSync(join(tmpdir(), "payments-solc-"));
    try {
      const cold = await compileContracts({ cacheDir: dir });
      expect(cold.fromCache).toBe(false);
      expect(cold.compilerVersion).toMatch(/^0\.8\.37/);
      for (const artifact of Object.values(cold.contracts)) {
        expect(artifact.bytecode.length).toBeGreaterThan(100);
        expect(artifact.deployedBytecode.length).toBeGreaterThan(100);
      }
      const warm = await compileContracts({ cacheDir: dir });
      expect(warm.fromCache).toBe(true);
      expect(warm.cacheKey).toBe(cold.cacheKey);
      expect(warm.contracts).toEqual(cold.contracts);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000); // a cold solc-js compile takes 5-15 s, more on a loaded 2-core machine
});

describe("anvil launcher", () => {
  it("refuses a non-loopback host", async () => {
    await expect(startAnvil({ host: "0.0.0.0" })).rejects.toThrow(/loopback/);
  });
});

describe("bootstrapLocalChain", () => {
  let anvil: AnvilHandle;
  let chain: LocalChain;

  beforeAll(async () => {
    anvil = await startAnvil({ chainId: 1337 });
    chain = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: deployer.privateKey,
      cacheDir: TEST_CACHE_DIR,
    });
  }, 120_000); // may compile cold on a fresh checkout
  afterAll(async () => {
    await anvil?.stop();
  });

  it("serves loopback only and reports the chain", () => {
    expect(anvil.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(chain.chainId).toBe(1337);
    expect(chain.network).toBe("eip155:1337");
  });

  it("uses the addresses @x402/evm expects", () => {
    expect(PERMIT2_ADDRESS).toBe(X402_PERMIT2_ADDRESS);
    expect(X402_EXACT_PERMIT2_PROXY_ADDRESS).toBe(x402ExactPermit2ProxyAddress);
    expect(X402_UPTO_PERMIT2_PROXY_ADDRESS).toBe(x402UptoPermit2ProxyAddress);
    expect(chain.permit2Address).toBe(PERMIT2_ADDRESS);
  });

  it("has Permit2 predeployed and our proxies installed with the right constants", async () => {
    const { publicClient } = chain;
    expect((await publicClient.getCode({ address: PERMIT2_ADDRESS }))?.length).toBeGreaterThan(1000);
    for (const [address, abi, witness] of [
      [x402ExactPermit2ProxyAddress, x402ExactPermit2ProxyABI, "Witness(address to,uint256 validAfter)"],
      [
        x402UptoPermit2ProxyAddress,
        x402UptoPermit2ProxyABI,
        "Witness(address to,address facilitator,uint256 validAfter)",
      ],
    ] as const) {
      expect(await publicClient.readContract({ address, abi, functionName: "PERMIT2" })).toBe(
        PERMIT2_ADDRESS,
      );
      expect(await publicClient.readContract({ address, abi, functionName: "WITNESS_TYPEHASH" })).toBe(
        keccak256(toHex(witness)),
      );
      expect(await publicClient.readContract({ address, abi, functionName: "WITNESS_TYPE_STRING" })).toBe(
        `Witness witness)TokenPermissions(address token,uint256 amount)${witness}`,
      );
    }
    // The upto witness the client signs is the one the proxy hashes.
    expect(uptoPermit2WitnessTypes.Witness.map((f) => f.name)).toEqual(["to", "facilitator", "validAfter"]);
  });

  it("deploys LocalUSD with 6 decimals, the USDC-like EIP-712 domain and the deployer as owner", async () => {
    const read = (functionName: string, args: readonly unknown[] = []) =>
      chain.publicClient.readContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName,
        args,
      });
    expect(chain.asset).toMatchObject({ name: "USD Coin", version: "1", decimals: 6 });
    expect(await read("name")).toBe("USD Coin");
    expect(await read("version")).toBe("1");
    expect(await read("decimals")).toBe(6);
    expect(await read("owner")).toBe(deployer.address);
    const domain = (await read("eip712Domain")) as readonly unknown[];
    expect(domain.slice(1, 5)).toEqual(["USD Coin", "1", 1337n, chain.asset.address]);
  });

  it("funds wallets with LocalUSD and gas, and approves Permit2", async () => {
    const before = await chain.balanceOf(payer.address);
    await chain.fund(payer.address, "12.5");
    expect(await chain.balanceOf(payer.address)).toBe(before + 12_500_000n);
    const fresh = privateKeyToAccount(
      "0x1000000000000000000000000000000000000000000000000000000000000001" as Hex,
    ).address;
    await chain.fund(fresh, "0.000001");
    expect(await chain.balanceOf(fresh)).toBe(1n);
    expect(await chain.publicClient.getBalance({ address: fresh })).toBeGreaterThan(0n);

    await chain.approvePermit2(payer.privateKey);
    expect(
      await chain.publicClient.readContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "allowance",
        args: [payer.address, PERMIT2_ADDRESS],
      }),
    ).toBe(maxUint256);
  });

  it("is idempotent: a second bootstrap reuses the token and keeps balances", async () => {
    await chain.fund(payee.address, "1");
    const payeeBalance = await chain.balanceOf(payee.address);
    const again = await bootstrapLocalChain({
      rpcUrl: anvil.rpcUrl,
      deployerPrivateKey: deployer.privateKey,
      cacheDir: TEST_CACHE_DIR,
    });
    expect(again.deployedNow).toBe(false);
    expect(again.asset).toEqual(chain.asset);
    expect(await again.balanceOf(payee.address)).toBe(payeeBalance);
  });

  it("only lets the owner mint", async () => {
    const stranger = createWalletClient({
      account: privateKeyToAccount(otherPayer.privateKey),
      chain: chain.chain,
      transport: http(chain.rpcUrl),
    });
    await expect(
      chain.publicClient.simulateContract({
        account: stranger.account,
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "mint",
        args: [otherPayer.address, 1n],
      }),
    ).rejects.toThrow(/OwnableUnauthorizedAccount/);
  });

  describe("LocalUSD EIP-3009 / EIP-2612", () => {
    const payerAccount = privateKeyToAccount(payer.privateKey);
    const domain = () => ({
      name: chain.asset.name,
      version: chain.asset.version,
      chainId: chain.chainId,
      verifyingContract: chain.asset.address,
    });
    const now = () => BigInt(Math.floor(Date.now() / 1000));
    const wallet = (key: Hex) =>
      createWalletClient({
        account: privateKeyToAccount(key),
        chain: chain.chain,
        transport: http(chain.rpcUrl),
      });

    async function authorization(
      value: bigint,
      validBefore = now() + 600n,
      primaryType: "TransferWithAuthorization" | "ReceiveWithAuthorization" = "TransferWithAuthorization",
    ) {
      const nonce = keccak256(toHex(`nonce-${Math.random()}`));
      const message = { from: payer.address, to: payee.address, value, validAfter: 0n, validBefore, nonce };
      const signature =
        primaryType === "TransferWithAuthorization"
          ? await payerAccount.signTypedData({ domain: domain(), types: AUTH_TYPES, primaryType, message })
          : await payerAccount.signTypedData({
              domain: domain(),
              types: { ReceiveWithAuthorization: AUTH_TYPES.TransferWithAuthorization },
              primaryType,
              message,
            });
      return { message, signature };
    }

    it("transfers with the bytes-signature overload and marks the nonce used", async () => {
      await chain.fund(payer.address, "1");
      const { message, signature } = await authorization(1234n);
      const payeeBefore = await chain.balanceOf(payee.address);
      const hash = await wallet(otherPayer.privateKey).writeContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "transferWithAuthorization",
        args: [
          message.from,
          message.to,
          message.value,
          message.validAfter,
          message.validBefore,
          message.nonce,
          signature,
        ],
      });
      const receipt = await chain.publicClient.waitForTransactionReceipt({ hash });
      expect(receipt.status).toBe("success");
      expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + 1234n);
      expect(
        await chain.publicClient.readContract({
          address: chain.asset.address,
          abi: chain.assetAbi,
          functionName: "authorizationState",
          args: [payer.address, message.nonce],
        }),
      ).toBe(true);
    });

    it("rejects expired authorizations and wrong signers on chain", async () => {
      const expired = await authorization(1n, now() - 10n);
      const { r, s, v } = parseSignature(expired.signature);
      const m = expired.message;
      await expect(
        chain.publicClient.simulateContract({
          account: otherPayer.address,
          address: chain.asset.address,
          abi: chain.assetAbi,
          functionName: "transferWithAuthorization",
          args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, Number(v), r, s],
        }),
      ).rejects.toThrow(/authorization is expired/);

      const forged = await privateKeyToAccount(otherPayer.privateKey).signTypedData({
        domain: domain(),
        types: AUTH_TYPES,
        primaryType: "TransferWithAuthorization",
        message: { ...m, validBefore: now() + 600n },
      });
      await expect(
        chain.publicClient.simulateContract({
          account: otherPayer.address,
          address: chain.asset.address,
          abi: chain.assetAbi,
          functionName: "transferWithAuthorization",
          args: [m.from, m.to, m.value, m.validAfter, now() + 600n, m.nonce, forged],
        }),
      ).rejects.toThrow(/invalid signature/);
    });

    it("receiveWithAuthorization only from the payee; cancelAuthorization burns the nonce", async () => {
      const { message: m, signature } = await authorization(5n, undefined, "ReceiveWithAuthorization");
      const args = [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature] as const;
      await expect(
        chain.publicClient.simulateContract({
          account: otherPayer.address,
          address: chain.asset.address,
          abi: chain.assetAbi,
          functionName: "receiveWithAuthorization",
          args,
        }),
      ).rejects.toThrow(/caller must be the payee/);
      const payeeBefore = await chain.balanceOf(payee.address);
      const hash = await wallet(payee.privateKey).writeContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "receiveWithAuthorization",
        args,
      });
      expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      expect(await chain.balanceOf(payee.address)).toBe(payeeBefore + 5n);

      const { message: c, signature: transferSig } = await authorization(7n);
      const cancelSig = await payerAccount.signTypedData({
        domain: domain(),
        types: {
          CancelAuthorization: [
            { name: "authorizer", type: "address" },
            { name: "nonce", type: "bytes32" },
          ],
        },
        primaryType: "CancelAuthorization",
        message: { authorizer: payer.address, nonce: c.nonce },
      });
      const cancelHash = await wallet(otherPayer.privateKey).writeContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "cancelAuthorization",
        args: [payer.address, c.nonce, cancelSig],
      });
      expect((await chain.publicClient.waitForTransactionReceipt({ hash: cancelHash })).status).toBe(
        "success",
      );
      await expect(
        chain.publicClient.simulateContract({
          account: otherPayer.address,
          address: chain.asset.address,
          abi: chain.assetAbi,
          functionName: "transferWithAuthorization",
          args: [c.from, c.to, c.value, c.validAfter, c.validBefore, c.nonce, transferSig],
        }),
      ).rejects.toThrow(/authorization is used or canceled/);
    });

    it("supports EIP-2612 permit", async () => {
      const deadline = now() + 600n;
      const nonce = (await chain.publicClient.readContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "nonces",
        args: [payer.address],
      })) as bigint;
      const signature = await payerAccount.signTypedData({
        domain: domain(),
        types: {
          Permit: [
            { name: "owner", type: "address" },
            { name: "spender", type: "address" },
            { name: "value", type: "uint256" },
            { name: "nonce", type: "uint256" },
            { name: "deadline", type: "uint256" },
          ],
        },
        primaryType: "Permit",
        message: { owner: payer.address, spender: otherPayer.address, value: 42n, nonce, deadline },
      });
      const { r, s, v } = parseSignature(signature);
      const hash = await wallet(otherPayer.privateKey).writeContract({
        address: chain.asset.address,
        abi: chain.assetAbi,
        functionName: "permit",
        args: [payer.address, otherPayer.address, 42n, deadline, Number(v), r, s],
      });
      expect((await chain.publicClient.waitForTransactionReceipt({ hash })).status).toBe("success");
      expect(
        await chain.publicClient.readContract({
          address: chain.asset.address,
          abi: chain.assetAbi,
          functionName: "allowance",
          args: [payer.address, otherPayer.address],
        }),
      ).toBe(42n);
    });
  });
});
