import { LOCAL_DEV_ACCOUNTS, localChainDefinition } from "@app/local-chain";
import { test } from "@app/testkit";
import { type Address, createWalletClient, type Hex, http, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll } from "vitest";
import { type SelfServeGateway, startSelfServeGateway } from "../../testing/self-serve.ts";

/** `POST /v1/credits` for `amount` USD of credit, with any other headers (a payment, an idempotency key). */
export const buy = (amount: string, headers: Record<string, string> = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify({ amount }),
});

/** A fresh wallet, funded on the local chain, whose account is open on the self-serve gateway. */
export type CreditBuyer = {
  /** The gateway the account is open on. */
  h: SelfServeGateway;
  wallet: Hex;
  address: Address;
  accountId: string;
  /** The account's balance in micro-USD, as the database has it (-1 when it has none). */
  balance(): Promise<bigint>;
};

/**
 * For a describe block of credit tests: registers the hooks that start the self-serve gateway on
 * the file's database before the first test, fund a fresh wallet (LocalUSD and pathUSD) and open
 * its account, and stop the gateway after the last test. What it returns is filled in by then:
 * read it inside the tests, not while the block is collected.
 */
export function creditBuyer(): CreditBuyer {
  const wallet = generatePrivateKey();
  const buyer = {
    wallet,
    address: privateKeyToAccount(wallet).address,
    accountId: "",
    async balance() {
      const [row] = await buyer.h.db.query<{ b: string }>(
        "SELECT balance_micro::text AS b FROM gateway.accounts WHERE id = $1",
        [buyer.accountId],
      );
      return BigInt(row?.b ?? "-1");
    },
  } as CreditBuyer;
  test.beforeAll(async ({ db }) => {
    buyer.h = await startSelfServeGateway(db);
    await buyer.h.fundWallet(wallet);
    buyer.accountId = (await buyer.h.openAccount(wallet)).account.id;
  });
  afterAll(async () => {
    await buyer.h?.stop();
  });
  return buyer;
}

/** The payer cancels an EIP-3009 authorisation (its signature, sent by the token's deployer, who pays the gas). */
export async function cancelAuthorization(
  h: SelfServeGateway,
  payerKey: Hex,
  authorizer: Hex,
  nonce: Hex,
): Promise<void> {
  const payer = privateKeyToAccount(payerKey);
  const signature = await payer.signTypedData({
    domain: {
      name: h.chain.asset.name,
      version: h.chain.asset.version,
      chainId: h.chain.chainId,
      verifyingContract: h.chain.asset.address,
    },
    types: {
      CancelAuthorization: [
        { name: "authorizer", type: "address" },
        { name: "nonce", type: "bytes32" },
      ],
    },
    primaryType: "CancelAuthorization",
    message: { authorizer, nonce },
  });
  const rpcUrl = h.chain.publicClient.transport.url as string;
  const sender = createWalletClient({
    account: privateKeyToAccount(LOCAL_DEV_ACCOUNTS.deployer.privateKey),
    chain: localChainDefinition(rpcUrl, h.chain.chainId),
    transport: http(rpcUrl),
  });
  const hash = await sender.writeContract({
    address: h.chain.asset.address,
    abi: parseAbi(["function cancelAuthorization(address authorizer, bytes32 nonce, bytes signature)"]),
    functionName: "cancelAuthorization",
    args: [authorizer, nonce, signature],
  });
  await h.chain.publicClient.waitForTransactionReceipt({ hash });
}
