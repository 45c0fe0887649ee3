import { recoverMessageAddress } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { describe, expect, it } from "vitest";
import { isMessageSignedBy, isTypedDataSignedBy, recoverSigner } from "../src/index.ts";

const alice = privateKeyToAccount(generatePrivateKey());
const bob = privateKeyToAccount(generatePrivateKey());

const typedData = {
  domain: { name: "USD Coin", version: "1", chainId: 1337, verifyingContract: alice.address },
  types: {
    Transfer: [
      { name: "to", type: "address" },
      { name: "value", type: "uint256" },
    ],
  },
  primaryType: "Transfer",
  message: { to: bob.address, value: 1000n },
} as const;

describe("native signature checks", () => {
  it("agrees with viem on who signed a personal message", async () => {
    const message = "127.0.0.1 wants you to sign in with your Ethereum account";
    const signature = await alice.signMessage({ message });
    expect(await recoverMessageAddress({ message, signature })).toBe(alice.address);
    expect(isMessageSignedBy(alice.address, message, signature)).toBe(true);
    expect(isMessageSignedBy(alice.address.toLowerCase(), message, signature)).toBe(true);
    expect(isMessageSignedBy(bob.address, message, signature)).toBe(false);
    expect(isMessageSignedBy(alice.address, `${message}!`, signature)).toBe(false);
  });

  it("checks EIP-712 typed data", async () => {
    const signature = await alice.signTypedData(typedData);
    expect(isTypedDataSignedBy(alice.address, typedData, signature)).toBe(true);
    expect(isTypedDataSignedBy(bob.address, typedData, signature)).toBe(false);
    const other = { ...typedData, message: { ...typedData.message, value: 1001n } };
    expect(isTypedDataSignedBy(alice.address, other, signature)).toBe(false);
  });

  it("answers undefined for anything that is not a 65-byte ECDSA signature", () => {
    const hash = `0x${"ab".repeat(32)}` as const;
    expect(recoverSigner(hash, "0x")).toBeUndefined();
    expect(recoverSigner(hash, `0x${"00".repeat(64)}`)).toBeUndefined();
    expect(recoverSigner(hash, `0x${"00".repeat(64)}1f`)).toBeUndefined();
    expect(recoverSigner(hash, `0x${"ff".repeat(65)}`)).toBeUndefined();
    expect(recoverSigner(hash, "0xnothex" as `0x${string}`)).toBeUndefined();
  });
});
