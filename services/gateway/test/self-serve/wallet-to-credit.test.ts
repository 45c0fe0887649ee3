import { json, test } from "@app/testkit";
import { createSIWxPayload, encodeSIWxHeader, parseSIWxHeader } from "@x402/extensions/sign-in-with-x";
import type { Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type SelfServeGateway, startSelfServeGateway } from "../../testing/self-serve.ts";

const json201 = (body: unknown = {}) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body),
});

describe("self-serve: a wallet opens an account, buys credit, and manages its keys with no CLI", () => {
  let h: SelfServeGateway;
  const wallet = generatePrivateKey();
  const address = privateKeyToAccount(wallet).address.toLowerCase();
  let accountId = "";
  let firstKey = "";

  test.beforeAll(async ({ db }) => {
    h = await startSelfServeGateway(db);
    await h.fundWallet(wallet);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const signedIn = async (path: string, init: RequestInit = {}, key: Hex = wallet) => {
    const header = await h.signIn(key, path, init);
    return fetch(`${h.url}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), "sign-in-with-x": header },
    });
  };
  const balanceOf = async (id: string) =>
    (
      await h.db.query<{ b: string }>("SELECT balance_micro::text AS b FROM gateway.accounts WHERE id = $1", [
        id,
      ])
    )[0]?.b;

  test("POST /v1/accounts without a sign-in: 402 with the SIWX challenge for this URL", async () => {
    const res = await fetch(`${h.url}/v1/accounts`, { method: "POST" });
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body).toMatchObject({ error: "siwx_missing_header", message: expect.any(String) });
    expect(body.extensions["sign-in-with-x"].info.uri).toBe(`${h.url}/v1/accounts`);
    expect(res.headers.get("payment-required")).toBeTruthy();
  });

  test("signed in, the wallet opens its account: 201 with the account and its first key, shown once", async () => {
    const res = await signedIn("/v1/accounts", json201({ name: "My agent" }));
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.account).toMatchObject({
      name: "My agent",
      wallet: address,
      balance: { amount: "0", currency: "USD" },
    });
    expect(body.key.key).toMatch(/^gwk_/);
    expect(body.key.prefix).toBe(body.key.key.slice(0, body.key.prefix.length));
    accountId = body.account.id;
    firstKey = body.key.key;
    const [stored] = await h.db.query<{ owner_wallet: string }>(
      "SELECT owner_wallet FROM gateway.accounts WHERE id = $1",
      [accountId],
    );
    expect(stored?.owner_wallet).toBe(address);
    expect(JSON.stringify(await h.db.query("SELECT * FROM gateway.api_keys"))).not.toContain(firstKey);
  });

  test("a second account for the same wallet is 409 ACCOUNT_EXISTS naming the first, and none is made", async () => {
    const res = await signedIn("/v1/accounts", json201());
    expect(res.status).toBe(409);
    expect(await json(res)).toMatchObject({ error: "ACCOUNT_EXISTS", accountId });
    const owned = await h.db.query("SELECT id FROM gateway.accounts WHERE owner_wallet = $1", [address]);
    expect(owned).toHaveLength(1);
  });

  test("the first key runs tools: inspect answers with it", async () => {
    const res = await fetch(`${h.url}/v1/inspect?provider=markets&endpoint=/pm/event`, {
      headers: { authorization: `Bearer ${firstKey}` },
    });
    expect(res.status).toBe(200);
  });

  test("POST /v1/credits without a payment: 402 naming the amount asked for, by x402 exact and MPP", async () => {
    const res = await fetch(`${h.url}/v1/credits`, json201({ amount: "0.50" }));
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body).toMatchObject({ error: "PAYMENT_REQUIRED", message: expect.stringContaining("0.5") });
    expect(body.accepts[0]).toMatchObject({ scheme: "exact", amount: "500000", network: h.chain.network });
    const mpp = res.headers.get("www-authenticate") ?? "";
    expect(mpp).toMatch(/^Payment /);
    expect(mpp).toContain('intent="charge"');
  });

  test("buys 0.50 of credit with x402 exact: credited after settlement, the transaction in the answer and the ledger", async () => {
    const before = await h.chain.balanceOf(privateKeyToAccount(wallet).address);
    const res = await h.payingFetch(wallet)(`${h.url}/v1/credits`, json201({ amount: "0.50" }));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({
      credited: { amount: "0.5", currency: "USD" },
      balance: { amount: "0.5", currency: "USD" },
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(res.headers.get("payment-response")).toBeTruthy();
    expect(await h.chain.balanceOf(privateKeyToAccount(wallet).address)).toBe(before - 500_000n);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: body.transaction });
    expect(receipt.status).toBe("success");
    const rows = await h.db.query<Record<string, string>>(
      `SELECT kind, amount_micro::text AS amount, payment_protocol, transaction_hash, settlement_reference
       FROM gateway.ledger WHERE account_id = $1 AND settlement_reference IS NOT NULL`,
      [accountId],
    );
    expect(rows).toEqual([
      {
        kind: "credit",
        amount: "500000",
        payment_protocol: "x402",
        transaction_hash: body.transaction,
        settlement_reference: expect.stringContaining(address),
      },
    ]);
    expect(await balanceOf(accountId)).toBe("500000");
  });

  test("buys 0.50 more with an MPP charge: the balance is 1.00, the ledger row has the charge's transaction", async () => {
    const res = await h.mppClient(wallet).fetch(`${h.url}/v1/credits`, json201({ amount: "0.50" }));
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ credited: { amount: "0.5" }, balance: { amount: "1", currency: "USD" } });
    expect(body.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.headers.get("payment-receipt")).toBeTruthy();
    const [row] = await h.db.query<{ payment_protocol: string; transaction_hash: string }>(
      `SELECT payment_protocol, transaction_hash FROM gateway.ledger
       WHERE account_id = $1 AND payment_protocol = 'mpp'`,
      [accountId],
    );
    expect(row).toEqual({ payment_protocol: "mpp", transaction_hash: body.transaction });
    expect(await balanceOf(accountId)).toBe("1000000");
  });

  test("an amount out of bounds or not exact is a 400 before any payment is asked", async () => {
    for (const amount of ["0.009", "100.000001", "1e2", "-1", "0.1234567", " 1", "01", "", "1."]) {
      const res = await fetch(`${h.url}/v1/credits`, json201({ amount }));
      expect(res.status, amount).toBe(400);
      expect((await json(res)).error).toBe("VALIDATION_FAILED");
    }
    const numeric = await fetch(`${h.url}/v1/credits`, json201({ amount: 1 }));
    expect(numeric.status).toBe(400);
  });

  test("a wallet with no account is told to open one, and pays nothing", async () => {
    const stranger = generatePrivateKey();
    await h.fundWallet(stranger, "1");
    const before = await h.chain.balanceOf(privateKeyToAccount(stranger).address);
    const res = await h.payingFetch(stranger)(`${h.url}/v1/credits`, json201({ amount: "0.50" }));
    expect(res.status).toBe(404);
    expect((await json(res)).error).toBe("ACCOUNT_NOT_FOUND");
    expect(await h.chain.balanceOf(privateKeyToAccount(stranger).address)).toBe(before);
  });

  test("keys: a new key with a label (shown once), listed with the first, never the key or its hash; revoked, it stops working", async () => {
    const created = await signedIn("/v1/keys", json201({ label: "ci" }));
    expect(created.status).toBe(201);
    const issued = await json(created);
    expect(issued).toMatchObject({ label: "ci", revokedAt: null, key: expect.stringMatching(/^gwk_/) });

    const listed = await signedIn("/v1/keys", { method: "GET" });
    expect(listed.status).toBe(200);
    const text = await listed.text();
    const keys = JSON.parse(text).keys as Record<string, unknown>[];
    expect(keys.map((key) => key.id)).toHaveLength(2);
    expect(keys.map((key) => key.label)).toEqual(["first", "ci"]);
    for (const key of keys)
      expect(Object.keys(key).sort()).toEqual([
        "createdAt",
        "id",
        "label",
        "lastUsedAt",
        "prefix",
        "revokedAt",
      ]);
    expect(text).not.toContain(issued.key);
    expect(text).not.toContain(firstKey);
    const hashes = await h.db.query<{ key_hash: string }>("SELECT key_hash FROM gateway.api_keys");
    for (const { key_hash } of hashes) expect(text).not.toContain(key_hash);

    const works = () =>
      fetch(`${h.url}/v1/inspect?provider=markets&endpoint=/pm/event`, {
        headers: { authorization: `Bearer ${issued.key}` },
      });
    expect((await works()).status).toBe(200);
    const revoked = await signedIn(`/v1/keys/${issued.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(200);
    expect((await json(revoked)).revokedAt).toEqual(expect.any(String));
    expect((await works()).status).toBe(401);
  });

  test("another wallet cannot revoke this account's key: 404, and the key still works", async () => {
    const other = generatePrivateKey();
    expect((await signedIn("/v1/accounts", json201(), other)).status).toBe(201);
    const [first] = await h.db.query<{ id: string }>(
      "SELECT id FROM gateway.api_keys WHERE account_id = $1 AND label = 'first'",
      [accountId],
    );
    const res = await signedIn(`/v1/keys/${first?.id}`, { method: "DELETE" }, other);
    expect(res.status).toBe(404);
    expect((await json(res)).error).toBe("KEY_NOT_FOUND");
    const still = await fetch(`${h.url}/v1/inspect?provider=markets&endpoint=/pm/event`, {
      headers: { authorization: `Bearer ${firstKey}` },
    });
    expect(still.status).toBe(200);
  });

  test("a wallet with no account gets 404 ACCOUNT_NOT_FOUND from the key routes", async () => {
    const res = await signedIn("/v1/keys", json201(), generatePrivateKey());
    expect(res.status).toBe(404);
    expect((await json(res)).error).toBe("ACCOUNT_NOT_FOUND");
  });

  describe("sign-in refusals", () => {
    const open = (header: string) =>
      fetch(`${h.url}/v1/keys`, { method: "GET", headers: { "sign-in-with-x": header } });

    test("a forged signature is refused: siwx_invalid_signature", async () => {
      const mine = parseSIWxHeader(await h.signIn(wallet, "/v1/keys", { method: "GET" }));
      const theirs = parseSIWxHeader(await h.signIn(generatePrivateKey(), "/v1/keys", { method: "GET" }));
      const res = await open(encodeSIWxHeader({ ...mine, signature: theirs.signature }));
      expect(res.status).toBe(402);
      expect((await json(res)).error).toBe("siwx_invalid_signature");
    });

    test("an expired sign-in is refused: siwx_expired, with a fresh challenge", async () => {
      const issued = parseSIWxHeader(await h.signIn(wallet, "/v1/keys", { method: "GET" }));
      const past = Date.now() - 10 * 60_000;
      const expired = await createSIWxPayload(
        {
          ...issued,
          issuedAt: new Date(past).toISOString(),
          expirationTime: new Date(past + 60_000).toISOString(),
          type: "eip191",
        } as never,
        privateKeyToAccount(wallet),
        issued.uri,
      );
      const res = await open(encodeSIWxHeader(expired));
      expect(res.status).toBe(402);
      expect((await json(res)).error).toBe("siwx_expired");
      expect(res.headers.get("payment-required")).toBeTruthy();
    });

    test("a sign-in is good once, and for its own resource only", async () => {
      const header = await h.signIn(wallet, "/v1/keys", { method: "GET" });
      expect((await open(header)).status).toBe(200);
      expect((await json(await open(header))).error).toBe("siwx_nonce_used");
      const forAccounts = await h.signIn(wallet, "/v1/accounts");
      expect((await json(await open(forAccounts))).error).toBe("siwx_wrong_resource");
    });

    test("garbage in the header is a 402 siwx_malformed, never a 500", async () => {
      for (const header of ["not base64", Buffer.from("{}").toString("base64"), "x".repeat(9000)]) {
        const res = await open(header);
        expect(res.status).toBe(402);
        expect((await json(res)).error).toBe("siwx_malformed");
      }
    });
  });

  describe("discovery", () => {
    test("/openapi.json describes POST /v1/credits as fortune describes its paid routes", async () => {
      const doc = await json(await fetch(`${h.url}/openapi.json`));
      const operation = doc.paths["/v1/credits"].post;
      expect(operation["x-payment-info"]).toEqual({
        price: { mode: "dynamic", min: "0.01", max: "100", currency: "USD" },
        protocols: [{ x402: {} }, { mpp: { method: "tempo", intent: "charge", currency: h.tempo.currency } }],
      });
      expect(operation.responses["402"].description).toBe("Payment Required");
      expect(doc.components.securitySchemes.siwx).toEqual({
        type: "apiKey",
        in: "header",
        name: "SIGN-IN-WITH-X",
      });
      expect(doc.paths["/v1/accounts"].post.security).toEqual([{ siwx: [] }]);
    });

    test("/.well-known/x402 lists the paid route, by x402 and by MPP", async () => {
      const known = await json(await fetch(`${h.url}/.well-known/x402`));
      expect(known).toMatchObject({
        version: 1,
        resources: [`${h.url}/v1/credits`],
        mppResources: [`${h.url}/v1/credits`],
        instructions: expect.stringContaining("POST /v1/credits"),
      });
    });
  });
});
