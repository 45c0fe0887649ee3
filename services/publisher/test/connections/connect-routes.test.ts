import { DEMO_BLUESKY, DEMO_BLUESKY_SELF_HOSTED, DEMO_GOOGLE, DEMO_TIKTOK } from "@app/sandbox/demo";
import { test } from "@app/testkit";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { approveOnSandbox } from "../../src/demo.ts";
import { createAccount } from "../../src/store/accounts.ts";
import { connectionRoutesApp, type Sandbox, startSandbox } from "../publishing-support.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

const KEYS: Record<string, string> = {
  "key-a": "acct_routes_a",
  "key-b": "acct_routes_b",
  "key-c": "acct_routes_c",
  "key-d": "acct_routes_d",
  "key-e": "acct_routes_e",
};

function appFor(db: Parameters<typeof createAccount>[0]) {
  return connectionRoutesApp(db as never, sandbox.url, {
    authenticate: async (c) => {
      const accountId = KEYS[c.req.header("x-api-key") ?? ""];
      if (!accountId) throw Object.assign(new Error("no key"), { status: 401 });
      return { accountId };
    },
  });
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

type Grant = {
  confirmation: string;
  confirmUrl: string;
  publisherAccount: { id: string; name: string };
  platformAccount: { id: string; name: string };
};

/** The callback as a program sees it: the grant's facts (JSON) and the browser-binding cookie. */
async function callback(
  app: ReturnType<typeof appFor>,
  platform: string,
  granted: { code: string; state: string },
) {
  const res = await app.request(`/oauth/${platform}/callback?code=${granted.code}&state=${granted.state}`);
  const cookie = res.headers.get("set-cookie")?.split(";")[0];
  return { res, cookie, grant: res.status === 200 ? ((await res.clone().json()) as Grant) : undefined };
}

/** The confirm step, with the cookie the callback set (or the one given). */
function confirm(
  app: ReturnType<typeof appFor>,
  platform: string,
  input: { confirmation: string; cookie?: string; decision?: string; accept?: string },
) {
  const form = new URLSearchParams({
    confirmation: input.confirmation,
    decision: input.decision ?? "connect",
  });
  return app.request(`/oauth/${platform}/confirm`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(input.cookie ? { cookie: input.cookie } : {}),
      ...(input.accept ? { accept: input.accept } : {}),
    },
    body: form.toString(),
  });
}

async function connectionsOf(
  db: { query: <T>(sql: string, params?: unknown[]) => Promise<T[]> },
  accountId: string,
) {
  return db.query<{ id: string }>(`SELECT id FROM publisher.connections WHERE account_id = $1`, [accountId]);
}

describe("connecting accounts through the platforms' OAuth flows", () => {
  test("a YouTube connect sends the user to Google with PKCE and offline access; the callback names the channel and the account, and the confirm saves it", async ({
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
    const back = await callback(app, "youtube", granted);
    expect(back.res.status).toBe(200);
    expect(back.grant).toMatchObject({
      confirmUrl: "http://127.0.0.1:3002/oauth/youtube/confirm",
      publisherAccount: { id: "acct_routes_a", name: "acct_routes_a" },
      platformAccount: { id: DEMO_GOOGLE.accounts.creator.channel.id, name: "Sandbox Demo Channel" },
    });
    const res = await confirm(app, "youtube", {
      confirmation: back.grant?.confirmation ?? "",
      cookie: back.cookie,
    });
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
    // TikTok's encoding of the S256 challenge: hex, not RFC 7636's base64url (the twin refuses that).
    expect(new URL(authorizeUrl).searchParams.get("code_challenge")).toMatch(/^[0-9a-f]{64}$/);
    const granted = await approveOnSandbox(authorizeUrl, DEMO_TIKTOK.creators.public.openId);
    const first = await callback(app, "tiktok", granted);
    expect(first.res.status).toBe(200);
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
    const { res } = await callback(app, "youtube", granted);
    expect(await res.json()).toMatchObject({ error: "NO_YOUTUBE_CHANNEL" });
  });

  test("a connect link followed by someone else connects nothing until that person confirms the named publisher account", async ({
    db,
  }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    // Account B's holder starts a connect and sends the link to the owner of a YouTube channel.
    const { authorizeUrl } = await authorize(app, "youtube", "key-c");
    const granted = await approveOnSandbox(authorizeUrl, DEMO_GOOGLE.accounts.creator.id);
    const page = await app.request(`/oauth/youtube/callback?code=${granted.code}&state=${granted.state}`, {
      headers: { accept: "text/html,application/xhtml+xml" },
    });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("referrer-policy")).toBe("no-referrer");
    const cookie = page.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    const html = await page.text();
    expect(html).toContain("acct_routes_c");
    expect(html).toContain("Sandbox Demo Channel");
    expect(html).toContain('action="/oauth/youtube/confirm"');
    expect(await connectionsOf(db, "acct_routes_c")).toEqual([]);

    const confirmation = /name="confirmation" value="([^"]+)"/.exec(html)?.[1] ?? "";
    const declined = await confirm(app, "youtube", {
      confirmation,
      cookie: cookie.split(";")[0],
      decision: "cancel",
      accept: "text/html",
    });
    expect(declined.status).toBe(200);
    expect(await declined.text()).toContain("Nothing was connected.");
    expect(await connectionsOf(db, "acct_routes_c")).toEqual([]);
    const afterCancel = await confirm(app, "youtube", { confirmation, cookie: cookie.split(";")[0] });
    expect(afterCancel.status).toBe(400);
    expect(await afterCancel.json()).toMatchObject({ error: "OAUTH_STATE_INVALID" });
    expect(await connectionsOf(db, "acct_routes_c")).toEqual([]);
  });

  test("a confirmation posted without the callback's cookie, or with another's, is refused and stays usable by its own browser", async ({
    db,
  }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const first = await callback(
      app,
      "tiktok",
      await approveOnSandbox(
        (await authorize(app, "tiktok", "key-d")).authorizeUrl,
        DEMO_TIKTOK.creators.public.openId,
      ),
    );
    const other = await callback(
      app,
      "tiktok",
      await approveOnSandbox(
        (await authorize(app, "tiktok", "key-d")).authorizeUrl,
        DEMO_TIKTOK.creators.public.openId,
      ),
    );
    const confirmation = first.grant?.confirmation ?? "";
    const bare = await confirm(app, "tiktok", { confirmation });
    expect(bare.status).toBe(403);
    expect(await bare.json()).toMatchObject({ error: "OAUTH_CONFIRMATION_REFUSED" });
    const crossed = await confirm(app, "tiktok", { confirmation, cookie: other.cookie });
    expect(crossed.status).toBe(403);
    expect(await connectionsOf(db, "acct_routes_d")).toEqual([]);

    const own = await confirm(app, "tiktok", { confirmation, cookie: first.cookie });
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({
      success: true,
      connection: { platform: "tiktok", account_id: DEMO_TIKTOK.creators.public.openId },
    });
    const replay = await confirm(app, "tiktok", { confirmation, cookie: first.cookie });
    expect(replay.status).toBe(400);
    expect(await connectionsOf(db, "acct_routes_d")).toHaveLength(1);
  });

  test("a confirmation for one platform does not confirm another's grant", async ({ db }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const back = await callback(
      app,
      "youtube",
      await approveOnSandbox(
        (await authorize(app, "youtube", "key-e")).authorizeUrl,
        DEMO_GOOGLE.accounts.creator.id,
      ),
    );
    const res = await confirm(app, "tiktok", {
      confirmation: back.grant?.confirmation ?? "",
      cookie: back.cookie,
    });
    expect(res.status).toBe(400);
    expect(await connectionsOf(db, "acct_routes_e")).toEqual([]);
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

  test("an account on a self-hosted PDS connects there; an unknown handle is named as such", async ({
    db,
  }) => {
    await ensureAccounts(db);
    const app = appFor(db);
    const post = (handle: string, appPassword: string) =>
      app.request("/api/v1/connections/bluesky", {
        method: "POST",
        headers: { "x-api-key": "key-b", "content-type": "application/json" },
        body: JSON.stringify({ handle, appPassword }),
      });
    const ok = await post(DEMO_BLUESKY_SELF_HOSTED.handle, DEMO_BLUESKY_SELF_HOSTED.appPassword);
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({
      connection: { platform: "bluesky", account_id: DEMO_BLUESKY_SELF_HOSTED.did },
    });
    const unknown = await post("nobody-here.pds2.test", "abcd-efgh-ijkl-mnop");
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: "BLUESKY_ACCOUNT_NOT_FOUND" });
  });
});
