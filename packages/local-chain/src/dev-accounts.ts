/**
 * Well-known development accounts — LOCAL CHAINS ONLY.
 *
 * These are anvil's default accounts, derived from the public mnemonic
 * `test test test test test test test test test test test junk` (m/44'/60'/0'/0/i). Their private
 * keys are published everywhere: never send real funds to them and never use them outside a
 * throwaway local chain.
 *
 * @module
 */
import type { Address, Hex } from "viem";

/** The public anvil/hardhat development mnemonic. LOCAL CHAINS ONLY. */
export const LOCAL_DEV_MNEMONIC = "test test test test test test test test test test test junk";

/** One well-known local development account. */
export interface LocalDevAccount {
  /** HD index under {@link LOCAL_DEV_MNEMONIC}. */
  readonly index: number;
  readonly address: Address;
  readonly privateKey: Hex;
}

/**
 * The named roles used by the local rails, each a distinct anvil default account. LOCAL CHAINS ONLY.
 *
 * - `deployer` (#9): deploys and owns LocalUSD (mints with `fund`). A less-used index so that other
 *   tools driving account #0 do not race its nonces.
 * - `facilitator` (#5): the in-process x402 facilitator's signer; submits settlements and pays gas.
 * - `mppOperator` (#6): the MPP session operator; settles and closes channels (its own nonces).
 * - `payee` (#2): default `payTo` of paid routes.
 * - `payer` (#1): the demo client wallet.
 * - `otherPayer` (#3): a second client wallet (tests use it for "wrong signer" cases).
 */
export const LOCAL_DEV_ACCOUNTS = {
  payer: {
    index: 1,
    address: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  },
  payee: {
    index: 2,
    address: "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC",
    privateKey: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  },
  otherPayer: {
    index: 3,
    address: "0x90F79bf6EB2c4f870365E785982E1f101E93b906",
    privateKey: "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
  },
  facilitator: {
    index: 5,
    address: "0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc",
    privateKey: "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
  },
  mppOperator: {
    index: 6,
    address: "0x976EA74026E726554dB657fA54763abd0C3a0aa9",
    privateKey: "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
  },
  deployer: {
    index: 9,
    address: "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
    privateKey: "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
  },
} as const satisfies Record<string, LocalDevAccount>;
