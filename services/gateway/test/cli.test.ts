import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { runCli } from "../src/cli/run.ts";
import { bearer, gatewayHarness, postJson } from "./support/harness.ts";
import { PRICED_PROVIDER, pricedRun, pricedUpstream } from "./support/priced.ts";

/** The CLI on the test database (left open after each command), its output captured. */
function operatorCli(db: Database) {
  return async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      openDatabase: async () => ({ ...db, close: async () => undefined }),
      io: { out: (text) => out.push(text), err: (text) => err.push(text) },
    });
    const text = out.join("\n");
    return {
      code,
      err: err.join("\n"),
      result: code === 0 && text.startsWith("{") ? JSON.parse(text) : undefined,
    };
  };
}

describe("npm run gateway -- …", () => {
  test("an operator opens an account, credits it, issues a key that works until revoked, and reads usage", async ({
    db,
  }) => {
    const cli = operatorCli(db);
    const upstream = await pricedUpstream();
    const { app, deps, close } = gatewayHarness(db, {
      extraProviders: [PRICED_PROVIDER],
      urls: { priced: upstream.url },
    });
    const created = await cli("accounts", "create", "--name", "Agent Smith", "--credit", "1.5");
    expect(created.code).toBe(0);
    expect(created.result.account).toMatchObject({ name: "Agent Smith", balance: "1.5" });
    const accountId = created.result.account.id as string;

    expect((await cli("credit", "--account", accountId, "--amount", "0.25")).result).toEqual({
      account: accountId,
      balance: "1.75",
    });
    const issued = await cli("keys", "create", "--account", accountId, "--label", "laptop");
    expect(issued.result.key).toMatch(/^gwk_/);
    const key = issued.result.key as string;

    const ran = await json(await postJson(app, "/v1/run", pricedRun(), bearer(key)));
    expect(ran.balance.amount).toBe("1.5");

    await deps.held.flush(); // priced runs are settled behind their answers
    const usage = await cli("usage", "--account", accountId);
    expect(usage.result.account.balance).toBe("1.5");
    expect(usage.result.runs).toHaveLength(1);
    expect(usage.result.runs[0]).toMatchObject({
      provider: "priced",
      outcome: "completed",
      upstreamStatus: 200,
      cost: "0.25",
    });
    expect(
      usage.result.ledger.map((entry: { kind: string; amount: string }) => [entry.kind, entry.amount]),
    ).toEqual([
      ["run", "-0.25"],
      ["credit", "0.25"],
      ["credit", "1.5"],
    ]);

    const listed = await cli("keys", "list", "--account", accountId);
    expect(listed.result.keys).toHaveLength(1);
    expect(JSON.stringify(listed.result)).not.toContain(key);
    expect((await cli("keys", "revoke", "--key", issued.result.id)).code).toBe(0);
    expect((await postJson(app, "/v1/run", pricedRun(), bearer(key))).status).toBe(401);
    expect((await cli("accounts", "list")).result.accounts.map((a: { id: string }) => a.id)).toContain(
      accountId,
    );
    await close();
    await upstream.close();
  });

  test("refuses mistakes with a reason and a non-zero exit code", async ({ db }) => {
    const cli = operatorCli(db);
    expect((await cli("credit", "--account", "acct_nobody", "--amount", "1")).err).toContain("no account");
    const created = await cli("accounts", "create", "--name", "X");
    const id = created.result.account.id as string;
    for (const amount of ["0", "-1", "1.0000001", "abc"]) {
      const refused = await cli("credit", "--account", id, `--amount=${amount}`);
      expect(refused.code, amount).toBe(1);
      expect(refused.err).toContain("--amount");
    }
    expect((await cli("keys", "revoke", "--key", "key_nothing")).code).toBe(1);
    expect((await cli("accounts", "create")).code).toBe(1);
    expect((await cli("accounts", "create", "--name", "X", "--bogus", "1")).code).toBe(2);
    expect((await cli("fly")).code).toBe(2);
    expect((await cli("help")).code).toBe(0);
  });
});
