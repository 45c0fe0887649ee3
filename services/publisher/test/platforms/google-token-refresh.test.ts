import { DEMO_GOOGLE } from "@app/sandbox/demo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveOnSandbox, sandboxAdapters } from "../../src/demo.ts";
import { newPkceVerifier } from "../../src/platforms/pkce.ts";
import { type Sandbox, startSandbox } from "../publishing-support.ts";

// Google: access tokens carry `expires_in` (3599 s); a refresh returns no new refresh token unless
// the client has rotation, so the adapter must leave it undefined and the vault keeps the stored one.

const NOW = new Date("2030-03-01T12:00:00.000Z");
const clock = { now: () => NOW };
const REDIRECT = "http://127.0.0.1:4567/oauth/youtube/callback";
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe("the YouTube adapter's Google tokens", () => {
  it("records the expiry from expires_in, and a refresh without rotation brings no refresh token", async () => {
    const { oauth } = sandboxAdapters(sandbox.url, clock).youtube;
    const codeVerifier = newPkceVerifier();
    const authorizeUrl = oauth.authorizeUrl({ state: "st", codeVerifier, redirectUri: REDIRECT });
    const { code } = await approveOnSandbox(authorizeUrl, DEMO_GOOGLE.accounts.creator.id);
    const tokens = await oauth.exchangeCode({ code, codeVerifier, redirectUri: REDIRECT });
    expect(tokens.expiresAt).toBe("2030-03-01T12:59:59.000Z");
    expect(tokens.refreshToken).toMatch(/^1\/\//);
    const refreshed = await oauth.refresh(tokens.refreshToken ?? "");
    expect(refreshed.accessToken).toMatch(/^ya29\./);
    expect(refreshed.refreshToken).toBeUndefined();
    expect(refreshed.expiresAt).toBe("2030-03-01T12:59:59.000Z");
  });
});
