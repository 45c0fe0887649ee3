import { json } from "@app/testkit";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "vitest";
import { DEMO_GOOGLE } from "../../src/demo.ts";
import {
  form,
  GOOGLE_REDIRECT,
  googleConsent,
  googleTokens,
  locationParams,
  type Sandbox,
  startSandbox,
} from "../harness.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => fetch(`${sandbox.url}/_sandbox/reset`, { method: "POST" }));

const client = { client_id: DEMO_GOOGLE.clientId, client_secret: DEMO_GOOGLE.clientSecret };
const token = (fields: Record<string, string>) =>
  fetch(`${sandbox.url}/token`, form({ ...client, ...fields }));
const exchange = (code: string, extra: Record<string, string> = {}) =>
  token({ grant_type: "authorization_code", code, redirect_uri: GOOGLE_REDIRECT, ...extra });

describe("Google consent page and POST /token: success", () => {
  test("the consent page lists the demo accounts and carries the request in its form", async () => {
    const query = new URLSearchParams({
      client_id: DEMO_GOOGLE.clientId,
      redirect_uri: GOOGLE_REDIRECT,
      response_type: "code",
      scope: DEMO_GOOGLE.uploadScope,
      state: "abc",
    });
    const res = await fetch(`${sandbox.url}/o/oauth2/v2/auth?${query}`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain(DEMO_GOOGLE.accounts.creator.email);
    expect(page).toContain('name="state" value="abc"');
  });

  test("approving redirects with a code and the state, and the code buys an access and a refresh token", async () => {
    const redirect = await googleConsent(sandbox.url, { state: "xyz" });
    expect(redirect.get("state")).toBe("xyz");
    const res = await exchange(redirect.get("code") ?? "");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toEqual({
      access_token: expect.stringMatching(/^ya29\./),
      expires_in: 3599,
      refresh_token: expect.stringMatching(/^1\/\//),
      scope: DEMO_GOOGLE.uploadScope,
      token_type: "Bearer",
    });
  });

  test("a second consent without prompt=consent gives no refresh token; with it, a new one", async () => {
    await googleTokens(sandbox.url);
    const again = await json(await exchange((await googleConsent(sandbox.url)).get("code") ?? ""));
    expect(again.refresh_token).toBeUndefined();
    const forced = await json(
      await exchange((await googleConsent(sandbox.url, { prompt: "consent" })).get("code") ?? ""),
    );
    expect(forced.refresh_token).toMatch(/^1\/\//);
  });

  test("a refresh gives a new access token and, by default, no new refresh token", async () => {
    const { refresh_token } = await googleTokens(sandbox.url);
    const res = await token({ grant_type: "refresh_token", refresh_token: refresh_token ?? "" });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.access_token).toMatch(/^ya29\./);
    expect(body.refresh_token).toBeUndefined();
    expect((await token({ grant_type: "refresh_token", refresh_token: refresh_token ?? "" })).status).toBe(
      200,
    );
  });

  test("with rotation switched on, a refresh returns a new refresh token and the old one stops working", async () => {
    const { refresh_token: first = "" } = await googleTokens(sandbox.url);
    await fetch(`${sandbox.url}/_sandbox/settings`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ googleRotateRefreshTokens: true }),
    });
    const rotated = await json(await token({ grant_type: "refresh_token", refresh_token: first }));
    expect(rotated.refresh_token).toMatch(/^1\/\//);
    const reused = await token({ grant_type: "refresh_token", refresh_token: first });
    expect(reused.status).toBe(400);
    expect(await json(reused)).toEqual({
      error: "invalid_grant",
      error_description: "Token has been expired or revoked.",
    });
    await fetch(`${sandbox.url}/_sandbox/settings`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ googleRotateRefreshTokens: false }),
    });
  });

  test("a PKCE code is exchanged with its verifier", async () => {
    const code = (await googleConsent(sandbox.url, { verifier: "v".repeat(50) })).get("code") ?? "";
    expect((await exchange(code, { code_verifier: "v".repeat(50) })).status).toBe(200);
  });
});

describe("Google consent page and POST /token: errors", () => {
  test("denying redirects with error=access_denied and the state", async () => {
    const res = await fetch(
      `${sandbox.url}/o/oauth2/v2/auth/approve`,
      form({
        client_id: DEMO_GOOGLE.clientId,
        redirect_uri: GOOGLE_REDIRECT,
        response_type: "code",
        scope: DEMO_GOOGLE.uploadScope,
        state: "s9",
        decision: "deny",
      }),
    );
    expect(res.status).toBe(302);
    expect(Object.fromEntries(locationParams(res))).toEqual({ error: "access_denied", state: "s9" });
  });

  test("a code used twice is invalid_grant the second time", async () => {
    const code = (await googleConsent(sandbox.url)).get("code") ?? "";
    expect((await exchange(code)).status).toBe(200);
    const again = await exchange(code);
    expect(again.status).toBe(400);
    expect((await json(again)).error).toBe("invalid_grant");
  });

  test("a code exchanged with another redirect_uri is redirect_uri_mismatch", async () => {
    const code = (await googleConsent(sandbox.url)).get("code") ?? "";
    const res = await exchange(code, { redirect_uri: "http://127.0.0.1:4567/elsewhere" });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("redirect_uri_mismatch");
  });

  test("a PKCE code with a wrong or missing verifier is invalid_grant", async () => {
    const code = (await googleConsent(sandbox.url, { verifier: "a".repeat(50) })).get("code") ?? "";
    const res = await exchange(code, { code_verifier: "b".repeat(50) });
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: "invalid_grant", error_description: "Invalid code verifier." });
  });

  test("an unknown grant_type is unsupported_grant_type, a missing code invalid_request", async () => {
    expect((await json(await token({ grant_type: "password" }))).error).toBe("unsupported_grant_type");
    expect((await json(await token({ grant_type: "authorization_code" }))).error).toBe("invalid_request");
  });

  test("a revoked grant's refresh token is invalid_grant", async () => {
    const { refresh_token = "" } = await googleTokens(sandbox.url);
    await fetch(`${sandbox.url}/_sandbox/tokens/revoke`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ platform: "google" }),
    });
    const res = await token({ grant_type: "refresh_token", refresh_token });
    expect(res.status).toBe(400);
    expect((await json(res)).error).toBe("invalid_grant");
  });
});

describe("Google consent page and POST /token: security", () => {
  test("an unregistered redirect_uri gets an error page, never a redirect carrying a code", async () => {
    const query = new URLSearchParams({
      client_id: DEMO_GOOGLE.clientId,
      redirect_uri: "https://attacker.example/cb",
      response_type: "code",
      scope: DEMO_GOOGLE.uploadScope,
    });
    const res = await fetch(`${sandbox.url}/o/oauth2/v2/auth?${query}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(res.headers.get("location")).toBeNull();
    expect(await res.text()).toContain("redirect_uri_mismatch");
  });

  test("the state is escaped in the consent page", async () => {
    const query = new URLSearchParams({
      client_id: DEMO_GOOGLE.clientId,
      redirect_uri: GOOGLE_REDIRECT,
      response_type: "code",
      scope: DEMO_GOOGLE.uploadScope,
      state: '"><script>alert(1)</script>',
    });
    const page = await (await fetch(`${sandbox.url}/o/oauth2/v2/auth?${query}`)).text();
    expect(page).not.toContain("<script>alert(1)</script>");
    expect(page).toContain("&lt;script&gt;");
  });

  test("a wrong client secret or unknown client is invalid_client with 401", async () => {
    const wrong = await fetch(
      `${sandbox.url}/token`,
      form({ client_id: DEMO_GOOGLE.clientId, client_secret: "nope", grant_type: "refresh_token" }),
    );
    expect(wrong.status).toBe(401);
    expect((await json(wrong)).error).toBe("invalid_client");
    const unknown = await fetch(
      `${sandbox.url}/token`,
      form({ client_id: "other", client_secret: "x", grant_type: "refresh_token" }),
    );
    expect(unknown.status).toBe(401);
  });

  test("the request log shows the token endpoint's calls without codes or tokens", async () => {
    const { refresh_token = "" } = await googleTokens(sandbox.url);
    await token({ grant_type: "refresh_token", refresh_token });
    const log = await json(await fetch(`${sandbox.url}/_sandbox/requests?platform=google`));
    const text = JSON.stringify(log);
    expect(log.requests.map((entry: { operation: string }) => entry.operation)).toEqual([
      "google.oauth.approve",
      "google.oauth.token",
      "google.oauth.token",
    ]);
    expect(text).not.toContain(refresh_token);
  });
});
