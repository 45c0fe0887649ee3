import { ConfigError } from "@app/core";
import { describe, expect, test } from "vitest";
import { loadSandboxConfig } from "../src/config.ts";
import { demoCredentials } from "../src/demo.ts";

describe("the sandbox's configuration", () => {
  test("defaults: port 3006, TikTok's 6 inits and 30 status fetches a minute, Google without rotation", () => {
    const config = loadSandboxConfig({});
    expect(config.port).toBe(3006);
    expect(config.sandbox.tiktok).toMatchObject({ initPerMinute: 6, statusPerMinute: 30 });
    expect(config.sandbox.google.rotateRefreshTokens).toBe(false);
  });

  test("SANDBOX_ variables set lists and switches", () => {
    const config = loadSandboxConfig({
      SANDBOX_GOOGLE_ROTATE_REFRESH_TOKENS: "true",
      SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES: "http://127.0.0.1:9000/media/, https://cdn.example/",
    });
    expect(config.sandbox.google.rotateRefreshTokens).toBe(true);
    expect(config.sandbox.tiktok.verifiedUrlPrefixes).toEqual([
      "http://127.0.0.1:9000/media/",
      "https://cdn.example/",
    ]);
  });

  test("a bad value or a misspelt SANDBOX_ variable stops the start", () => {
    expect(() => loadSandboxConfig({ SANDBOX_TIKTOK_INIT_PER_MINUTE: "0" })).toThrow(ConfigError);
    expect(() => loadSandboxConfig({ SANDBOX_TIKTOK_VERIFIED_URL_PREFIXES: "ftp://x" })).toThrow(ConfigError);
    expect(() => loadSandboxConfig({ SANDBOX_PROT: "1" })).toThrow(/SANDBOX_PROT: unknown setting/);
  });

  test("the launcher's demo credentials keep secrets in named fields the banner filters out", () => {
    const credentials = demoCredentials("http://127.0.0.1:3006");
    expect(credentials.sandboxYouTube).toMatchObject({
      tokenUrl: "http://127.0.0.1:3006/token",
      clientSecret: expect.any(String),
    });
    expect(credentials.sandboxBluesky).toMatchObject({ appPassword: expect.any(String) });
  });
});
