import { createHash } from "node:crypto";
import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_TIKTOK } from "../../src/demo.ts";
import { tiktokPkceChallenge } from "../../src/tiktok/pkce.ts";
import {
  form,
  locationParams,
  type Sandbox,
  startSandbox,
  TIKTOK_REDIRECT,
  tiktokTokens,
} from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" }));

const client = { client_key: DEMO_TIKTOK.clientKey, client_secret: DEMO_TIKTOK.clientSecret };
const token = (fields: Record<string, string>) =>
  fetch(`${sandbox.url}/v2/oauth/token/`, form({ ...client, ...fields }));

async function consent(verifier: string, extra: Record<string, string> = {}) {
  return locationParams(
    await fetch(
      `${sandbox.url}/v2/auth/authorize/approve/`,
      form({
        client_key: DEMO_TIKTOK.clientKey,
        redirect_uri: TIKTOK_REDIRECT,
        response_type: "code",
        scope: "user.info.basic,video.publish",
        state: "s1",
        code_challenge: tiktokPkceChallenge(verifier),
        code_challenge_method: "S256",
        decision: "allow",
        account: DEMO_TIKTOK.creators.public.openId,
        ...extra,
      }),
    ),
  );
}

describe("TikTok Login Kit and POST /v2/oauth/token/: success", () => {
  test("a code exchanged with its PKCE verifier gives tokens of the documented lifetimes (2 h, 180 days)", async () => {
    const redirect = await consent("verifier-".repeat(6));
    expect(redirect.get("state")).toBe("s1");
    expect(redirect.get("scopes")).toBe("user.info.basic,video.publish");
    const res = await token({
      grant_type: "authorization_code",
      code: redirect.get("code") ?? "",
      redirect_uri: TIKTOK_REDIRECT,
      code_verifier: "verifier-".repeat(6),
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      open_id: DEMO_TIKTOK.creators.public.openId,
      scope: "user.info.basic,video.publish",
      access_token: expect.stringMatching(/^act\./),
      expires_in: 7200,
      refresh_token: expect.stringMatching(/^rft\./),
      refresh_expires_in: 15552000,
      token_type: "Bearer",
    });
  });

  test("a refresh returns a new refresh token and the previous one is then invalid_grant", async () => {
    const first = await tiktokTokens(sandbox.url);
    const refreshed = await json(
      await token({ grant_type: "refresh_token", refresh_token: first.refresh_token }),
    );
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed).toMatchObject({ expires_in: 7200, refresh_expires_in: 15552000 });
    const reused = await token({ grant_type: "refresh_token", refresh_token: first.refresh_token });
    expect(reused.status).toBe(400);
    expect(await json(reused)).toMatchObject({ error: "invalid_grant", log_id: expect.any(String) });
    expect(
      (await token({ grant_type: "refresh_token", refresh_token: refreshed.refresh_token })).status,
    ).toBe(200);
  });
});

describe("TikTok Login Kit and POST /v2/oauth/token/: errors", () => {
  test("a wrong PKCE verifier is invalid_request as TikTok words it", async () => {
    const redirect = await consent("right-verifier-0123456789-0123456789-0123456789");
    const res = await token({
      grant_type: "authorization_code",
      code: redirect.get("code") ?? "",
      redirect_uri: TIKTOK_REDIRECT,
      code_verifier: "wrong-verifier-0123456789-0123456789-0123456789",
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "invalid_request",
      error_description: "Code verifier or code challenge is invalid.",
    });
  });

  test("a base64url challenge (RFC 7636's encoding, not TikTok's hex) is invalid_request at the token step", async () => {
    const verifier = "rfc7636-verifier-0123456789-0123456789-0123456789";
    const redirect = await consent(verifier, {
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    });
    const res = await token({
      grant_type: "authorization_code",
      code: redirect.get("code") ?? "",
      redirect_uri: TIKTOK_REDIRECT,
      code_verifier: verifier,
    });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "invalid_request",
      error_description: "Code verifier or code challenge is invalid.",
    });
  });

  test("a scope the app was not approved for goes back as invalid_scope", async () => {
    const redirect = await consent("v".repeat(43), { scope: "video.list" });
    expect(redirect.get("error")).toBe("invalid_scope");
    expect(redirect.get("code")).toBeNull();
  });

  test("a JSON body is refused: the endpoint takes form encoding only", async () => {
    const res = await fetch(`${sandbox.url}/v2/oauth/token/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...client, grant_type: "refresh_token" }),
    });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("invalid_request");
  });
});

describe("TikTok Login Kit and POST /v2/oauth/token/: security", () => {
  test("a wrong client secret is 401 invalid_client", async () => {
    const res = await fetch(
      `${sandbox.url}/v2/oauth/token/`,
      form({ client_key: DEMO_TIKTOK.clientKey, client_secret: "x", grant_type: "refresh_token" }),
    );
    expect(res.status).toBe(401);
    expect((await json(res)).error).toBe("invalid_client");
  });

  test("a code is single use", async () => {
    const redirect = await consent("w".repeat(43));
    const exchange = () =>
      token({
        grant_type: "authorization_code",
        code: redirect.get("code") ?? "",
        redirect_uri: TIKTOK_REDIRECT,
        code_verifier: "w".repeat(43),
      });
    expect((await exchange()).status).toBe(200);
    expect((await json(await exchange())).error).toBe("invalid_grant");
  });

  test("an unregistered redirect_uri is an error page with no redirect", async () => {
    const query = new URLSearchParams({
      client_key: DEMO_TIKTOK.clientKey,
      redirect_uri: "https://evil.example/cb",
      response_type: "code",
      scope: "video.publish",
    });
    const res = await fetch(`${sandbox.url}/v2/auth/authorize/?${query}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
  });
});
