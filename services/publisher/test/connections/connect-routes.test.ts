import { createServiceApp, systemClock } from "@app/core";
import { DEMO_BLUESKY, DEMO_GOOGLE, DEMO_TIKTOK } from "@app/sandbox/demo";
import { silentLogger, test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { registerConnectionRoutes } from "../../src/connections/routes.ts";
import { approveOnSandbox, sandboxAdapters } from "../../src/demo.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { type Sandbox, startSandbox, testSealer } from "../publishing-support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const KEYS: Record<string, string> = { "key-a": "acct_routes_a", "key-b": "acct_routes_b" };

function appFor(db: Parameters<typeof createAccount>[0]) {
  const app = createServiceApp({
    name: "t",
    title: "t",
    version: "1",
    logger: silentLogger(),
    checkReady: async () => {},
  });
  registerConnectionRoutes(app, {
    db: db as never,
    clock: systemClock,
    sealer: testSealer(),
    adapters: sandboxAdapters(sandbox.url),
    publicUrl: "http://127.0.0.1:3002",
    blueskyService: sandbox.url,
    authenticate: async (c) => {
      const accountId = KEYS[c.req.header("x-api-key") ?? ""];
      if (!accountId) throw Object.assign(new Error("no key"), { status: 401 });
      return { accountId };
    },
  });
  return app;
}

async function ensureAccounts(db: Parameters<typeof createAccount>[0]) {
  for (const id of Object.values(KEYS)) await createAccount(db, { id, name: id }).catch(() => undefined);
}

const authorize = async (app: ReturnType<typeof appFor>, platform: string, key = "key-a") =>
  (await (
    await app.request(`/api/v1/connections/${platform}/authorize`, {
      method: "POST",
      headers: { "x-api-key": key },
    })
  ).json()) as {
    authorizeUrl: string;
  };

describe("connecting accounts through the platforms' OAuth flows", () => {
  test("a YouTube connect sends the user to Google with PKCE and offline access, and the callback saves the channel", async ({
    db,
  }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const { authorizeUrl } = await authorize(app, "youtube");
    const params = new URL(authorizeUrl).searchParams;
    expect(params.get("redirect_uri")).toBe("http://127.0.0.1:3002/oauth/youtube/callback");
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("access_type")).toBe("offline");
    const granted = await approveOnSandbox(authorizeUrl, DEMO_GOOGLE.accounts.creator.id);
    const res = await app.request(`/oauth/youtube/callback?code=${granted.code}&state=${granted.state}`);
    expect(res.status).toBe(200);
    const { connection } = (await res.json()) as {
      connection: { id: string; account_id: string; account_name: string };
    };
    expect(connection).toMatchObject({
      account_id: DEMO_GOOGLE.accounts.creator.channel.id,
      account_name: "Sandbox Demo Channel",
    });
    const [row] = await db.query<{ tokens: string; accountId: string }>(
      `SELECT tokens, account_id AS "accountId" FROM publisher.connections WHERE id = $1`,
      [connection.id],
    );
    expect(row?.accountId).toBe("acct_routes_a");
    expect(row?.tokens).toMatch(/^v1\./);
    expect(row?.tokens).not.toContain("ya29.");
  });

  test("a state works once: replaying the callback is refused", async ({ db }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const { authorizeUrl } = await authorize(app, "tiktok", "key-b");
    const granted = await approveOnSandbox(authorizeUrl, DEMO_TIKTOK.creators.public.openId);
    const first = await app.request(`/oauth/tiktok/callback?code=${granted.code}&state=${granted.state}`);
    expect(first.status).toBe(200);
    const again = await app.request(`/oauth/tiktok/callback?code=${granted.code}&state=${granted.state}`);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "OAUTH_STATE_INVALID" });
  });

  test("a state minted for one platform does not complete another's callback", async ({ db }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const { authorizeUrl } = await authorize(app, "youtube");
    const granted = await approveOnSandbox(authorizeUrl, DEMO_GOOGLE.accounts.creator.id);
    const res = await app.request(`/oauth/tiktok/callback?code=${granted.code}&state=${granted.state}`);
    expect(res.status).toBe(400);
  });

  test("a user who denies consent gets an error, and nothing is connected", async ({ db }) => {
    const app = appFor(db);
    const res = await app.request("/oauth/youtube/callback?error=access_denied&state=whatever");
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: "OAUTH_DENIED" });
  });

  test("a Google account without a YouTube channel cannot be connected", async ({ db }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const { authorizeUrl } = await authorize(app, "youtube");
    const granted = await approveOnSandbox(authorizeUrl, DEMO_GOOGLE.accounts.noChannel.id);
    const res = await app.request(`/oauth/youtube/callback?code=${granted.code}&state=${granted.state}`);
    expect(await res.json()).toMatchObject({ error: "NO_YOUTUBE_CHANNEL" });
  });

  test("Bluesky connects with a handle and an app password; a wrong password is refused", async ({ db }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const post = (appPassword: string) =>
      app.request("/api/v1/connections/bluesky", {
        method: "POST",
        headers: { "x-api-key": "key-a", "content-type": "application/json" },
        body: JSON.stringify({ handle: `@${DEMO_BLUESKY.handle}`, appPassword }),
      });
    const ok = await post(DEMO_BLUESKY.appPassword);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      connection: { platform: "bluesky", account_id: DEMO_BLUESKY.did },
    });
    const wrong = await post("wrong-pass-word-0000");
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "BLUESKY_LOGIN_FAILED" });
  });
});
