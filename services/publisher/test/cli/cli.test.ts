import type { Database } from "@app/db";
import { apiKeyHash } from "@app/edge";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { runCli } from "../../src/cli/run.ts";
import { call, fakeClock, publisherApp } from "../support.ts";

function cli(db: Database) {
  return async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      openDatabase: async () => ({ ...db, close: async () => undefined }),
      io: { out: (text) => out.push(text), err: (text) => err.push(text) },
      clock: fakeClock("2026-06-15T06:00:00Z"),
    });
    const text = out.join("\n");
    return { code, err: err.join("\n"), result: code === 0 ? JSON.parse(text) : undefined };
  };
}

describe("npm run publisher --", () => {
  test("accounts create and keys create give a key that works, stored only as its hash", async ({ db }) => {
    const run = cli(db);
    const account = await run("accounts", "create", "--name", "Studio", "--time-zone", "Europe/Paris");
    expect(account.code).toBe(0);
    expect(account.result.account).toMatchObject({ name: "Studio", timeZone: "Europe/Paris" });
    const issued = await run("keys", "create", "--account", account.result.account.id, "--label", "ci");
    expect(issued.result).toMatchObject({
      key: expect.stringMatching(/^pk_/),
      scopes: ["posts:read", "posts:write", "media:write"],
    });
    const rows = await db.query<{ key_hash: string }>(
      "SELECT key_hash FROM publisher.api_keys WHERE id = $1",
      [issued.result.id],
    );
    expect(rows[0]?.key_hash).toBe(apiKeyHash(issued.result.key));
    const { app } = publisherApp(db);
    expect((await call(app, "GET", "/api/v1/groups", issued.result.key)).status).toBe(200);
  });

  test("a restricted key gets only its scopes, and keys revoke ends it", async ({ db }) => {
    const run = cli(db);
    const account = (await run("accounts", "create", "--name", "Reader")).result.account;
    const issued = (await run("keys", "create", "--account", account.id, "--scopes", "posts:read")).result;
    const { app } = publisherApp(db);
    expect((await call(app, "GET", "/api/v1/posts", issued.key)).status).toBe(200);
    expect((await call(app, "POST", "/api/v2/upload", issued.key, { contentLength: 1 })).status).toBe(403);
    expect((await run("keys", "revoke", "--key", issued.id)).code).toBe(0);
    const after = await call(app, "GET", "/api/v1/posts", issued.key);
    expect(await json(after)).toMatchObject({ error: "UNAUTHORIZED" });
    expect((await run("keys", "revoke", "--key", issued.id)).code).toBe(1);
  });

  test("accounts schedule sets the smart schedule the queue uses", async ({ db }) => {
    const run = cli(db);
    const account = (await run("accounts", "create", "--name", "Sched")).result.account;
    const set = await run(
      "accounts",
      "schedule",
      "--account",
      account.id,
      "--posts-per-day",
      "2",
      "--allowed-days",
      "5,1",
    );
    expect(set.result.schedule).toEqual({ postsPerDay: 2, allowedDays: [1, 5], timeZone: "UTC" });
  });

  test("mistakes are refused with a reason and no stack: unknown scope, zone, account, command", async ({
    db,
  }) => {
    const run = cli(db);
    const account = (await run("accounts", "create", "--name", "X")).result.account;
    expect(await run("keys", "create", "--account", account.id, "--scopes", "posts:delete")).toMatchObject({
      code: 1,
      err: expect.stringContaining("posts:delete"),
    });
    expect(await run("accounts", "create", "--name", "Y", "--time-zone", "Mars/Base")).toMatchObject({
      code: 1,
    });
    expect(await run("keys", "create", "--account", "acct_none")).toMatchObject({
      code: 1,
      err: expect.stringContaining("acct_none"),
    });
    expect((await run("posts", "delete")).code).toBe(2);
    expect((await run("accounts", "create", "--nope", "1")).code).toBe(2);
  });
});
