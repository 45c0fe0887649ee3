import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type SelfServeGateway, startSelfServeGateway } from "@app/gateway/testing";
import { test } from "@app/testkit";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

type Run = { code: number | null; stdout: string; stderr: string };

const children = new Set<ChildProcess>();
const outputs: string[] = [];

/** Runs `npm run pay -- gateway …` as its own process, reading `local.json` from `dataDir`. */
function pay(dataDir: string, ...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/pay/src/main.ts", "gateway", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      children.delete(child);
      outputs.push(stdout + stderr);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The JSON body the CLI printed after its status line. */
const bodyOf = (stdout: string) => JSON.parse(stdout.slice(stdout.indexOf("{"), stdout.lastIndexOf("}") + 1));

describe("npm run pay -- gateway: from a funded wallet to an account, credit, keys and a tool run", () => {
  let h: SelfServeGateway;
  let markets: Server;
  let dataDir: string;
  const wallet = generatePrivateKey();
  const address = privateKeyToAccount(wallet).address;

  test.beforeAll(async ({ db }) => {
    // The markets upstream the run reaches: one event, whatever the ref.
    markets = createServer((_req, res) => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ event: { slug: "demo", markets: [] } }));
    });
    await new Promise<void>((resolve) => markets.listen(0, "127.0.0.1", resolve));
    const marketsUrl = `http://127.0.0.1:${(markets.address() as AddressInfo).port}`;
    h = await startSelfServeGateway(db, { GATEWAY_MARKETS_URL: marketsUrl });
    await h.fundWallet(wallet, "5");
    dataDir = await mkdtemp(join(tmpdir(), "pay-gateway-"));
    const manifest = {
      services: { gateway: { url: h.url, docs: `${h.url}/docs` } },
      credentials: {
        demoWallet: { address, privateKey: wallet, note: "local chain only" },
        chain: {
          rpcUrl: h.chain.publicClient.transport.url,
          tempoRpcUrl: h.tempo.rpcUrl,
          chainId: h.chain.chainId,
          x402Asset: h.chain.asset.address,
          mppCurrency: h.tempo.currency,
        },
      },
    };
    await writeFile(join(dataDir, "local.json"), `${JSON.stringify(manifest, null, 2)}\n`);
  });
  afterAll(async () => {
    for (const child of children) child.kill();
    await h?.stop();
    markets?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  let firstKey = "";

  test("account: signs in with the wallet and opens its account; the first key is printed", async () => {
    const run = await pay(dataDir, "account", "--name", "cli agent");
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("HTTP 201");
    const body = bodyOf(run.stdout);
    expect(body.account).toMatchObject({ name: "cli agent", wallet: address.toLowerCase() });
    firstKey = body.key.key;
    expect(firstKey).toMatch(/^gwk_/);
  });

  test("credit 0.50: paid by x402 exact, credited, with the receipt", async () => {
    const before = await h.chain.balanceOf(address);
    const run = await pay(dataDir, "credit", "0.50");
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("Receipt (x402 PAYMENT-RESPONSE):");
    expect(bodyOf(run.stdout.slice(0, run.stdout.indexOf("Receipt")))).toMatchObject({
      credited: { amount: "0.5" },
      balance: { amount: "0.5" },
    });
    expect(await h.chain.balanceOf(address)).toBe(before - 500_000n);
  });

  test("credit 0.50 --scheme mpp: paid by an MPP charge; the balance is 1", async () => {
    const run = await pay(dataDir, "credit", "0.50", "--scheme", "mpp");
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain("Receipt (MPP Payment-Receipt):");
    expect(bodyOf(run.stdout.slice(0, run.stdout.indexOf("Receipt")))).toMatchObject({
      balance: { amount: "1" },
    });
  });

  test("key, keys and revoke: a labelled key, listed, then revoked", async () => {
    const created = await pay(dataDir, "key", "--label", "ci");
    expect(created.code, created.stderr).toBe(0);
    const key = bodyOf(created.stdout);
    expect(key).toMatchObject({ label: "ci", key: expect.stringMatching(/^gwk_/) });
    const listed = await pay(dataDir, "keys");
    expect(listed.code, listed.stderr).toBe(0);
    expect(bodyOf(listed.stdout).keys.map((k: { label: string }) => k.label)).toEqual(["first", "ci"]);
    expect(listed.stdout).not.toContain(key.key);
    const revoked = await pay(dataDir, "revoke", key.id);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(bodyOf(revoked.stdout).revokedAt).toEqual(expect.any(String));
  });

  test("run: the first key runs a tool, the upstream's answer in the envelope", async () => {
    const body = JSON.stringify({
      provider: "markets",
      endpoint: "/pm/event",
      method: "GET",
      input: { queryParams: { ref: "demo" } },
    });
    const run = await pay(dataDir, "run", "--key", firstKey, "--body", body);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(bodyOf(run.stdout)).toMatchObject({
      upstream: { status: 200 },
      output: { event: { slug: "demo" } },
    });
  });

  test("a bad amount is refused by the gateway before any payment, exit 1", async () => {
    const before = await h.chain.balanceOf(address);
    const run = await pay(dataDir, "credit", "1e2");
    expect(run.code).toBe(1);
    expect(run.stderr).toContain("VALIDATION_FAILED");
    expect(await h.chain.balanceOf(address)).toBe(before);
  });

  test("a usage mistake is exit 2 with the gateway usage", async () => {
    const run = await pay(dataDir, "credit");
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("npm run pay -- gateway");
  });

  test("the private key is never printed", () => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) expect(output.toLowerCase()).not.toContain(wallet.slice(2));
  });
});
