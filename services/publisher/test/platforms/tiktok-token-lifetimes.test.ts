import { DEMO_TIKTOK } from "@app/sandbox/demo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveOnSandbox, sandboxAdapters } from "../../src/demo.ts";
import { PlatformError } from "../../src/platforms/errors.ts";
import { newPkceVerifier } from "../../src/platforms/pkce.ts";
import { type Sandbox, startSandbox } from "../publishing-support.ts";

// TikTok's current token documentation ("Manage OAuth Access Tokens"; "Refresh a User Access
// Token"): access tokens live 2 hours (`expires_in`), refresh tokens 180 days
// (`refresh_expires_in`), and each refresh returns a new refresh token while the previous one
// stops working. The adapter must hand all of that to the token vault, which keeps the newest.

const NOW = new Date("2030-03-01T12:00:00.000Z");
const clock = { now: () => NOW };
const REDIRECT = "http://127.0.0.1:4567/oauth/tiktok/callback";
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

async function connect() {
  const { oauth } = sandboxAdapters(sandbox.url, clock).tiktok;
  const codeVerifier = newPkceVerifier();
  const authorizeUrl = oauth.authorizeUrl({ state: "st", codeVerifier, redirectUri: REDIRECT });
  const { code } = await approveOnSandbox(authorizeUrl, DEMO_TIKTOK.creators.public.openId);
  return { oauth, tokens: await oauth.exchangeCode({ code, codeVerifier, redirectUri: REDIRECT }) };
}

describe("the TikTok adapter and TikTok's token lifetimes", () => {
  it("records the access token's 2 hours and the refresh token's 180 days from the answer", async () => {
    const { tokens } = await connect();
    expect(tokens.expiresAt).toBe("2030-03-01T14:00:00.000Z");
    expect(tokens.refreshExpiresAt).toBe("2030-08-28T12:00:00.000Z");
    expect(tokens.refreshToken).toMatch(/^rft\./);
  });

  it("a refresh hands back the rotated refresh token with its new expiry; the old one then means reconnect", async () => {
    const { oauth, tokens } = await connect();
    const refreshed = await oauth.refresh(tokens.refreshToken ?? "");
    expect(refreshed.refreshToken).toMatch(/^rft\./);
    expect(refreshed.refreshToken).not.toBe(tokens.refreshToken);
    expect(refreshed.refreshExpiresAt).toBe("2030-08-28T12:00:00.000Z");
    expect(refreshed.expiresAt).toBe("2030-03-01T14:00:00.000Z");
    const stale = await oauth.refresh(tokens.refreshToken ?? "").catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(PlatformError);
    expect(stale).toMatchObject({ kind: "reconnect", reason: "invalid_grant" });
    expect((await oauth.refresh(refreshed.refreshToken ?? "")).accessToken).toMatch(/^act\./);
  });
});
