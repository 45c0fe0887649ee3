import { LOCAL_DEV_ACCOUNTS, localChainDefinition } from "@app/local-chain";
import { json, test } from "@app/testkit";
import { createWalletClient, type Hex, http, parseAbi } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type SelfServeGateway, startSelfServeGateway } from "../../testing/self-serve.ts";

const buy = (amount: string) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify({ amount }),
});

describe("a credit whose settlement went unanswered, its authorisation then cancelled by the payer", () => {
  let h: SelfServeGateway;
  const wallet = generatePrivateKey();
  const address = privateKeyToAccount(wallet).address;
  let accountId = "";

  test.beforeAll(async ({ db }) => {
    h = await startSelfServeGateway(db);
    await h.fundWallet(wallet);
    const header = await h.signIn(wallet, "/v1/accounts");
    const opened = await fetch(`${h.url}/v1/accounts`, {
      method: "POST",
      headers: { "sign-in-with-x": header },
    });
    accountId = (await json(opened)).account.id;
  });
  afterAll(async () => {
    await h?.stop();
  });

  const balance = async () =>
    BigInt(
      (
        await h.db.query<{ b: string }>(
          "SELECT balance_micro::text AS b FROM gateway.accounts WHERE id = $1",
          [accountId],
        )
      )[0]?.b ?? "-1",
    );

  test("is never credited by the reconciler: a cancelled nonce is not a payment received", async () => {
    let authorization: { from: Hex; nonce: Hex } | undefined;
    h.settleGate = async (_settle, { payload }) => {
      // The facilitator never answers (a timeout, a lost connection): the gateway answers 503.
      authorization = (payload.payload as { authorization: { from: Hex; nonce: Hex } }).authorization;
      throw new Error("the facilitator did not answer");
    };
    const paidBefore = await h.chain.balanceOf(address);
    const res = await h.payingFetch(wallet)(`${h.url}/v1/credits`, buy("0.50"));
    h.settleGate = undefined;
    expect(res.status).toBe(503);
    expect((await json(res)).error).toBe("SETTLEMENT_PENDING");
    expect(authorization).toBeDefined();

    // The payer, seeing the 503, cancels the authorisation it signed: nothing can ever be paid with it.
    await cancelAuthorization(h, wallet, authorization?.from as Hex, authorization?.nonce as Hex);

    // Later the reconciler asks the chain how the payment ended.
    await h.db.query(
      "UPDATE gateway.credit_payments SET updated_at = now() - interval '2 minutes' WHERE state = 'pending'",
    );
    await h.reconciler.reconcile();

    expect(await h.chain.balanceOf(address)).toBe(paidBefore);
    const [payment] = await h.db.query<{ state: string }>(
      "SELECT state FROM gateway.credit_payments WHERE account_id = $1",
      [accountId],
    );
    // Not one token left the wallet: nothing may be credited for it.
    expect({ balance: await balance(), credited: payment?.state === "credited" }).toEqual({
      balance: 0n,
      credited: false,
    });
  });
});

/** The payer cancels an EIP-3009 authorisation (its signature, sent by the token's deployer, who pays the gas). */
async function cancelAuthorization(
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
