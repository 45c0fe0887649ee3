/**
 * Audit of the OAuth confirm step (55c7f16): the browser page against a public URL with a path
 * (PUBLISHER_PUBLIC_URL accepts one: config.ts baseUrl keeps the path), the JSON variant's
 * caching, and concurrent confirms.
 */
import { DEMO_GOOGLE } from "@app/sandbox/demo";
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

const ACCOUNT = "acct_audit_oauth";

function appFor(db: Parameters<typeof createAccount>[0], publicUrl: string) {
  return connectionRoutesApp(db as never, sandbox.url, {
    publicUrl,
    authenticate: async () => ({ accountId: ACCOUNT }),
  });
}

async function grantFor(
  app: ReturnType<typeof appFor>,
  accept: string,
  starter: ReturnType<typeof appFor> = app,
) {
  // The sandbox only knows the default redirect URI: `starter` (same database) mints the state.
  const started = (await (
    await starter.request("/api/v1/connections/youtube/authorize", { method: "POST" })
  ).json()) as { authorizeUrl: string };
  const granted = await approveOnSandbox(started.authorizeUrl, DEMO_GOOGLE.accounts.creator.id);
  return app.request(`/oauth/youtube/callback?code=${granted.code}&state=${granted.state}`, {
    headers: { accept },
  });
}

describe("audit: OAuth confirm step", () => {
  test("behind a public URL with a path, the HTML confirm form and its cookie point under that path (as the JSON confirmUrl does)", async ({
    db,
  }) => {
    await createAccount(db, { id: ACCOUNT, name: ACCOUNT }).catch(() => undefined);
    const app = appFor(db, "https://media.example.com/publisher");
    const starter = appFor(db, "http://127.0.0.1:3002");
    const json = await grantFor(app, "application/json", starter);
    const { confirmUrl } = (await json.json()) as { confirmUrl: string };
    expect(confirmUrl).toBe("https://media.example.com/publisher/oauth/youtube/confirm");
    const page = await grantFor(app, "text/html", starter);
    const html = await page.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1] ?? "";
    // The browser resolves the action against the page it is on: https://media.example.com/publisher/oauth/youtube/callback
    const posted = new URL(action, "https://media.example.com/publisher/oauth/youtube/callback").toString();
    expect(posted).toBe(confirmUrl);
    // ...and the cookie must be sent to that URL's path.
    const cookiePath = /Path=([^;]+)/i.exec(page.headers.get("set-cookie") ?? "")?.[1] ?? "";
    expect(new URL(confirmUrl).pathname.startsWith(cookiePath)).toBe(true);
  });

  test("the JSON callback, which carries the confirmation, is not cacheable", async ({ db }) => {
    await createAccount(db, { id: ACCOUNT, name: ACCOUNT }).catch(() => undefined);
    const app = appFor(db, "http://127.0.0.1:3002");
    const res = await grantFor(app, "application/json");
    expect(res.status).toBe(200);
    expect(((await res.json()) as { confirmation: string }).confirmation).toBeTruthy();
    expect(res.headers.get("cache-control") ?? "").toContain("no-store");
  });

  test("two concurrent confirms of one grant make one connection and one 200", async ({ db }) => {
    await createAccount(db, { id: ACCOUNT, name: ACCOUNT }).catch(() => undefined);
    const app = appFor(db, "http://127.0.0.1:3002");
    const res = await grantFor(app, "application/json");
    const cookie = res.headers.get("set-cookie")?.split(";")[0] ?? "";
    const { confirmation } = (await res.json()) as { confirmation: string };
    const before = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM publisher.connections WHERE account_id = $1",
      [ACCOUNT],
    );
    const post = (decision: string) =>
      app.request("/oauth/youtube/confirm", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie },
        body: new URLSearchParams({ confirmation, decision }).toString(),
      });
    const answers = await Promise.all([post("connect"), post("connect"), post("cancel"), post("connect")]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    const after = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM publisher.connections WHERE account_id = $1",
      [ACCOUNT],
    );
    const made = (after[0]?.n ?? 0) - (before[0]?.n ?? 0);
    expect(made).toBeLessThanOrEqual(1);
    // Exactly the connects answered 200 made a connection, and only one can.
    const connectedAnswers = (
      await Promise.all(
        [answers[0], answers[1], answers[3]].map(
          async (a) =>
            (a?.status === 200
              ? ((await a.json()) as { connection: unknown }).connection
                ? 1
                : 0
              : 0) as number,
        ),
      )
    ).reduce((x, y) => x + y, 0);
    expect(connectedAnswers).toBe(made);
  });

  test("a cancel that comes after the grant was already connected does not answer 'Nothing was connected.'", async ({
    db,
  }) => {
    await createAccount(db, { id: ACCOUNT, name: ACCOUNT }).catch(() => undefined);
    const app = appFor(db, "http://127.0.0.1:3002");
    const res = await grantFor(app, "application/json");
    const cookie = res.headers.get("set-cookie")?.split(";")[0] ?? "";
    const { confirmation } = (await res.json()) as { confirmation: string };
    const post = (decision: string) =>
      app.request("/oauth/youtube/confirm", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", accept: "text/html", cookie },
        body: new URLSearchParams({ confirmation, decision }).toString(),
      });
    // Connect and Cancel both in flight (a double submit, a second tab): Connect wins.
    const connected = await post("connect");
    expect(connected.status).toBe(200);
    expect(await connected.text()).toContain("Connected");
    const cancelled = await post("cancel");
    const text = await cancelled.text();
    // The channel IS connected; telling the person "Nothing was connected." is false.
    expect(text).not.toContain("Nothing was connected.");
  });
});
