import { json, test } from "@app/testkit";
import { encodeSIWxHeader, parseSIWxHeader } from "@x402/extensions/sign-in-with-x";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";
import { type FortuneHarness, startFortune } from "../testing/harness.ts";

/** A valid save without a sign-in: answered with the sign-in challenge. */
const PROBE = { method: "POST", body: JSON.stringify({ fortune: "probe" }) };

describe("Sign-In-With-X: profile and favorites", () => {
  let h: FortuneHarness;
  const key = generatePrivateKey();
  const wallet = privateKeyToAccount(key).address.toLowerCase();

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
  });
  afterAll(async () => {
    await h?.stop();
  });

  const profile = (header?: string) =>
    fetch(`${h.url}/api/fortune/profile`, { headers: header ? { "sign-in-with-x": header } : {} });
  const save = (header: string, fortune: unknown) =>
    fetch(`${h.url}/api/fortune/favorites`, {
      method: "POST",
      headers: { "content-type": "application/json", "sign-in-with-x": header },
      body: JSON.stringify({ fortune }),
    });

  test("profile without a header: 402 siwx_missing_header with a sign-in challenge", async () => {
    const res = await profile();
    expect(res.status).toBe(402);
    expect(await json(res)).toMatchObject({ error: "siwx_missing_header" });
    expect(res.headers.get("payment-required")).toBeTruthy();
  });

  test("profile with a signed challenge: the verified wallet; the same header twice is refused", async () => {
    const header = await h.signIn(key, "/api/fortune/profile");
    const res = await profile(header);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ wallet, chainId: h.chain.network });
    expect(new Date(body.verifiedAt).toISOString()).toBe(body.verifiedAt);
    const replay = await profile(header);
    expect(replay.status).toBe(402);
    expect((await json(replay)).error).toBe("siwx_nonce_used");
  });

  test("malformed, forged, foreign-origin and unissued sign-ins each get their code", async () => {
    expect((await json(await profile("not base64 at all"))).error).toBe("siwx_malformed");
    expect((await json(await profile(Buffer.from("{}").toString("base64")))).error).toBe("siwx_malformed");

    const forged = parseSIWxHeader(await h.signIn(key, "/api/fortune/profile"));
    const otherSigner = parseSIWxHeader(await h.signIn(generatePrivateKey(), "/api/fortune/profile"));
    const res = await profile(encodeSIWxHeader({ ...forged, signature: otherSigner.signature }));
    expect((await json(res)).error).toBe("siwx_invalid_signature");

    const foreign = parseSIWxHeader(await h.signIn(key, "/api/fortune/profile"));
    const wrongDomain = await profile(encodeSIWxHeader({ ...foreign, domain: "evil.example" }));
    expect(wrongDomain.status).toBe(402);
    expect((await json(wrongDomain)).error).toMatch(/^siwx_/);

    const unissued = parseSIWxHeader(await h.signIn(key, "/api/fortune/profile"));
    const account = privateKeyToAccount(key);
    const { createSIWxMessage } = await import("@x402/extensions/sign-in-with-x");
    const made = { ...unissued, nonce: "0123456789abcdef0123456789abcdef" };
    const signature = await account.signMessage({
      message: createSIWxMessage(made as never, account.address),
    });
    const never = await profile(encodeSIWxHeader({ ...made, signature }));
    expect((await json(never)).error).toBe("siwx_expired");
  });

  test("favorites: owned by the wallet, at most 3, no duplicates, text 1..280", async () => {
    const sign = () => h.signIn(key, "/api/fortune/favorites", PROBE);
    for (const [index, text] of ["one", "two", "three"].entries()) {
      const res = await save(await sign(), text);
      expect(res.status).toBe(200);
      expect((await json(res)).count).toBe(index + 1);
    }
    const duplicate = await save(await sign(), "two");
    expect(duplicate.status).toBe(409);
    expect((await json(duplicate)).error).toBe("FAVORITE_EXISTS");
    const fourth = await save(await sign(), "four");
    expect(fourth.status).toBe(409);
    expect((await json(fourth)).error).toBe("FAVORITES_LIMIT");
    expect((await save(await sign(), "")).status).toBe(400);
    expect((await save(await sign(), "x".repeat(281))).status).toBe(400);

    const list = await fetch(`${h.url}/api/fortune/favorites`, {
      headers: { "sign-in-with-x": await h.signIn(key, "/api/fortune/favorites") },
    });
    expect(list.status).toBe(200);
    expect((await json(list)).favorites.map((f: { fortune: string }) => f.fortune)).toEqual([
      "one",
      "two",
      "three",
    ]);

    const stranger = generatePrivateKey();
    const theirs = await fetch(`${h.url}/api/fortune/favorites`, {
      headers: { "sign-in-with-x": await h.signIn(stranger, "/api/fortune/favorites") },
    });
    expect((await json(theirs)).favorites).toEqual([]);
  });

  test("a sign-in is good for the resource it was issued for only: one for the profile saves no favorite", async () => {
    const forProfile = await h.signIn(key, "/api/fortune/profile");
    const res = await save(forProfile, "misused");
    expect(res.status).toBe(402);
    expect(await json(res)).toMatchObject({ error: "siwx_wrong_resource" });
    // Refused before its nonce was spent: it still signs in to the profile.
    expect((await profile(forProfile)).status).toBe(200);
  });

  test("unanswered challenges store nothing: only spent nonces are kept", async () => {
    const [before] = await h.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM fortune.siwx_spent_nonces",
    );
    for (let i = 0; i < 20; i++) expect((await profile()).status).toBe(402);
    const [after] = await h.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM fortune.siwx_spent_nonces",
    );
    expect(after?.n).toBe(before?.n);
    expect((await profile(await h.signIn(key, "/api/fortune/profile"))).status).toBe(200);
    const [spent] = await h.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM fortune.siwx_spent_nonces",
    );
    expect(spent?.n).toBe((before?.n ?? 0) + 1);
  });

  test("concurrent saves never pass the limit", async () => {
    const racer = generatePrivateKey();
    const headers = await Promise.all(
      Array.from({ length: 6 }, () => h.signIn(racer, "/api/fortune/favorites", PROBE)),
    );
    const statuses = (await Promise.all(headers.map((header, i) => save(header, `fortune ${i}`)))).map(
      (r) => r.status,
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(3);
    expect(statuses.filter((s) => s === 409)).toHaveLength(3);
  });
});
