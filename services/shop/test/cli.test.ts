import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { runCli } from "../src/cli/run.ts";
import { availabilityPath, fakeClock, getWithKey, shopApp } from "./support.ts";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/** The CLI on the test database (left open after each command), its output captured. */
function ownerCli(db: Database) {
  return async (...argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, {
      openDatabase: async () => ({ ...db, close: async () => undefined }),
      io: { out: (text) => out.push(text), err: (text) => err.push(text) },
      clock: fakeClock("2026-06-15T06:00:00Z"),
    });
    const text = out.join("\n");
    return {
      code,
      text,
      err: err.join("\n"),
      result: code === 0 && text.startsWith("{") ? JSON.parse(text) : undefined,
    };
  };
}

describe("npm run shop -- …", () => {
  test("an owner sets up a shop, a service and a key; the printed key works until it is revoked", async ({
    db,
  }) => {
    const shop = ownerCli(db);
    const created = await shop(
      "shops",
      "create",
      "--name",
      "Chai & Chop",
      "--time-zone",
      "Asia/Kolkata",
      "--currency",
      "inr",
      "--hours",
      "mon-sat 10:00-13:00 14:00-19:00",
    );
    expect(created.code).toBe(0);
    const shopId = created.result.shop.id as string;
    expect(created.result.shop).toMatchObject({
      name: "Chai & Chop",
      timeZone: "Asia/Kolkata",
      currency: "INR",
    });
    const service = await shop(
      "services",
      "create",
      "--shop",
      shopId,
      "--name",
      "Head massage",
      "--duration",
      "45",
      "--price",
      "499.50",
      "--capacity",
      "3",
    );
    expect(service.result.service).toMatchObject({ durationMinutes: 45, priceMinor: 49950, capacity: 3 });
    expect(
      (await shop("closures", "add", "--shop", shopId, "--date", "2026-06-16", "--reason", "Festival")).code,
    ).toBe(0);
    const issued = await shop("keys", "create", "--shop", shopId, "--label", "gateway");
    expect(issued.code).toBe(0);
    const { key, id: keyId } = issued.result as { key: string; id: string };

    const app = shopApp(db, { clock: fakeClock("2026-06-15T06:00:00Z") });
    const res = await getWithKey(
      app,
      availabilityPath({ service: service.result.service.id, from: "2026-06-16", days: 2 }),
      key,
    );
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.services[0].price).toEqual({ amount: "499.50", currency: "INR" });
    expect(body.slots[0].start).toBe("2026-06-17T10:00:00+05:30");

    const shown = await shop("shops", "show", "--shop", shopId);
    expect(shown.result.hours).toBe(
      "mon 10:00-13:00 14:00-19:00; tue 10:00-13:00 14:00-19:00; wed 10:00-13:00 14:00-19:00; thu 10:00-13:00 14:00-19:00; fri 10:00-13:00 14:00-19:00; sat 10:00-13:00 14:00-19:00",
    );
    expect(shown.result.keys).toEqual([
      expect.objectContaining({ id: keyId, label: "gateway", revokedAt: null }),
    ]);
    expect(shown.text).not.toContain(key);

    expect((await shop("keys", "revoke", "--key", keyId)).code).toBe(0);
    expect((await getWithKey(app, availabilityPath(), key)).status).toBe(401);
  });

  test.for<[string, string[], RegExp]>([
    [
      "an unknown time zone",
      [
        "shops",
        "create",
        "--name",
        "X",
        "--time-zone",
        "Mars/Base",
        "--currency",
        "EUR",
        "--hours",
        "mon 09:00-10:00",
      ],
      /time zone/,
    ],
    [
      "an unknown currency",
      [
        "shops",
        "create",
        "--name",
        "X",
        "--time-zone",
        "UTC",
        "--currency",
        "EURO",
        "--hours",
        "mon 09:00-10:00",
      ],
      /ISO 4217/,
    ],
    [
      "unreadable hours",
      [
        "shops",
        "create",
        "--name",
        "X",
        "--time-zone",
        "UTC",
        "--currency",
        "EUR",
        "--hours",
        "weekdays 9-5",
      ],
      /weekday/,
    ],
    ["a missing option", ["shops", "create", "--name", "X"], /--time-zone is required/],
    [
      "an unknown shop",
      ["services", "create", "--shop", "shop_nope", "--name", "X", "--duration", "30", "--price", "1"],
      /no shop shop_nope/,
    ],
    ["an unknown key", ["keys", "revoke", "--key", "key_nope"], /no active key key_nope/],
  ])("%s is refused with exit code 1 and a reason", async ([, argv, reason], { db }) => {
    const result = await ownerCli(db)(...argv);
    expect(result.code).toBe(1);
    expect(result.err).toMatch(reason);
    expect(result.text).toBe("");
  });

  test("a price with more decimals than the currency has, or a duration out of range, creates no service", async ({
    db,
  }) => {
    const shop = ownerCli(db);
    const { result } = await shop(
      "shops",
      "create",
      "--name",
      "Y",
      "--time-zone",
      "UTC",
      "--currency",
      "EUR",
      "--hours",
      "mon 09:00-10:00",
    );
    const shopId = result.shop.id as string;
    const base = ["services", "create", "--shop", shopId, "--name", "Cut"];
    expect((await shop(...base, "--duration", "30", "--price", "9.999")).code).toBe(1);
    expect((await shop(...base, "--duration", "1", "--price", "9.99")).code).toBe(1);
    expect((await shop(...base, "--duration", "30", "--price", "9.99", "--capacity", "0")).code).toBe(1);
    expect((await shop("shops", "show", "--shop", shopId)).result.services).toEqual([]);
  });

  test("an unknown command or option prints the usage with exit code 2; help prints it with 0", async ({
    db,
  }) => {
    const shop = ownerCli(db);
    const unknown = await shop("shops", "delete");
    expect(unknown.code).toBe(2);
    expect(unknown.err).toContain("Usage: npm run shop");
    const badOption = await shop("shops", "list", "--colour", "red");
    expect(badOption.code).toBe(2);
    const help = await shop("help");
    expect(help.code).toBe(0);
    expect(help.text).toContain("keys revoke --key");
  });

  test("the entry point runs a command on the database under DATA_DIR", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "shop-cli-"));
    try {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          "--import",
          "tsx",
          "services/shop/src/cli.ts",
          "shops",
          "create",
          "--name",
          "Spawned",
          "--time-zone",
          "Europe/Berlin",
          "--currency",
          "EUR",
          "--hours",
          "mon-fri 09:00-17:00",
        ],
        { cwd: REPO_ROOT, env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: "", LOG_LEVEL: "silent" } },
      );
      expect(JSON.parse(stdout).shop).toMatchObject({ id: expect.stringMatching(/^shop_/), name: "Spawned" });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  test("a bad setting is the service's readable list and exit code 1, not a stack", async () => {
    const failed = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "services/shop/src/cli.ts", "shops", "list"],
      { cwd: REPO_ROOT, env: { ...process.env, DATABASE_URL: "not-a-url", LOG_LEVEL: "silent" } },
    ).then(
      () => undefined,
      (error: { code: number; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain("Invalid configuration");
    expect(failed?.stderr).toContain("DATABASE_URL");
    expect(failed?.stderr).not.toMatch(/\bat .*\.ts:\d/);
  });
});
