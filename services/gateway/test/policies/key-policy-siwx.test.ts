import { json, test } from "@app/testkit";
import type { Hex } from "viem";
import { generatePrivateKey } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type SelfServeGateway, startSelfServeGateway } from "../../testing/self-serve.ts";

const patchInit = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "PATCH",
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

describe("PATCH /v1/keys/{id} signed in with the account's wallet (self-serve)", () => {
  let h: SelfServeGateway;
  const wallet = generatePrivateKey();
  let key = { id: "", key: "" };

  test.beforeAll(async ({ db }) => {
    h = await startSelfServeGateway(db);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const signedIn = async (path: string, init: RequestInit, signer: Hex = wallet) => {
    const header = await h.signIn(signer, path, init);
    return fetch(`${h.url}${path}`, {
      ...init,
      headers: { ...(init.headers as Record<string, string>), "sign-in-with-x": header },
    });
  };
  const inspectShop = () =>
    fetch(`${h.url}/v1/inspect?provider=shop&endpoint=/api/shops/agent-availability`, {
      headers: { authorization: `Bearer ${key.key}` },
    });

  test("the wallet limits its account's key, and lifts the limit the limited key itself may not", async () => {
    const opened = await signedIn("/v1/accounts", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(opened.status).toBe(201);
    key = (await json(opened)).key;
    expect((await inspectShop()).status).toBe(200);

    const limited = await signedIn(`/v1/keys/${key.id}`, patchInit({ allow: ["markets"] }));
    expect(limited.status).toBe(200);
    expect(await json(limited)).toMatchObject({ keyId: key.id, allow: ["markets"] });
    expect((await inspectShop()).status).toBe(404);

    const byItself = await fetch(
      `${h.url}/v1/keys/${key.id}`,
      patchInit({ allow: null }, { authorization: `Bearer ${key.key}` }),
    );
    expect(byItself.status).toBe(403);
    const lifted = await signedIn(`/v1/keys/${key.id}`, patchInit({ allow: null }));
    expect(lifted.status).toBe(200);
    expect((await inspectShop()).status).toBe(200);
  });

  test("without a key or a sign-in, the answer is the sign-in challenge for this key's URL", async () => {
    const res = await fetch(`${h.url}/v1/keys/${key.id}`, patchInit({ allow: ["markets"] }));
    expect(res.status).toBe(402);
    const body = await json(res);
    expect(body.error).toBe("siwx_missing_header");
    expect(body.extensions["sign-in-with-x"].info.uri).toBe(`${h.url}/v1/keys/${key.id}`);
  });

  test("another wallet cannot set this key's policy", async () => {
    const stranger = generatePrivateKey();
    const none = await signedIn(`/v1/keys/${key.id}`, patchInit({ allow: ["markets"] }), stranger);
    expect(none.status).toBe(404);
    expect((await json(none)).error).toBe("ACCOUNT_NOT_FOUND");
    const opened = await signedIn("/v1/accounts", { method: "POST" }, stranger);
    expect(opened.status).toBe(201);
    const other = await signedIn(`/v1/keys/${key.id}`, patchInit({ allow: ["markets"] }), stranger);
    expect(other.status).toBe(404);
    expect((await json(other)).error).toBe("KEY_NOT_FOUND");
    expect((await inspectShop()).status).toBe(200);
  });
});
