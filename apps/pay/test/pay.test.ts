import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FortuneHarness, PAYEE, startFortune } from "@app/fortune/testing";
import { LOCAL_DEV_ACCOUNTS } from "@app/local-chain";
import { tip20Balance } from "@app/payments";
import { test } from "@app/testkit";
import { afterAll, describe, expect } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const PAYER = LOCAL_DEV_ACCOUNTS.payer;

type Run = { code: number | null; stdout: string; stderr: string; output: string };

const children = new Set<ChildProcess>();
const outputs: string[] = [];

/** Runs `npm run pay`'s entry point as its own process, reading `local.json` from `dataDir`. */
function pay(dataDir: string, ...args: string[]): Promise<Run> {
  const child = spawn(process.execPath, ["--import", "tsx", "apps/pay/src/main.ts", ...args], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  let stdout = "";
  let stderr = "";
  let output = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
    output += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => {
      children.delete(child);
      outputs.push(output);
      resolve({ code, stdout, stderr, output });
    });
  });
}

/** The one value printed after `label:` in the CLI's output. */
const field = (output: string, label: string): string | undefined =>
  new RegExp(`^\\s*${label}:\\s+(\\S+)`, "m").exec(output)?.[1];

describe("npm run pay: the official clients pay the fortune service from the demo wallet", () => {
  let h: FortuneHarness;
  let dataDir: string;

  test.beforeAll(async ({ db }) => {
    h = await startFortune(db);
    dataDir = await mkdtemp(join(tmpdir(), "pay-cli-"));
    const manifest = {
      services: { fortune: { url: h.url, docs: `${h.url}/docs` } },
      credentials: {
        demoWallet: { address: PAYER.address, privateKey: PAYER.privateKey, note: "local chain only" },
        chain: {
          rpcUrl: h.chain.rpcUrl,
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
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  const mppPayeeBalance = () => tip20Balance(h.tempo.rpcUrl, h.tempo.currency, PAYEE);

  test("without local.json: one clear line telling to run `npm start` first, exit 2", async () => {
    const empty = await mkdtemp(join(tmpdir(), "pay-cli-empty-"));
    try {
      const run = await pay(empty, "/api/fortune");
      expect(run.code).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr.trim().split("\n")).toHaveLength(1);
      expect(run.stderr).toContain(join(empty, "local.json"));
      expect(run.stderr).toContain("run `npm start` first");
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  test("/api/fortune by x402 exact: a fortune and a settled receipt; the payee gets exactly 0.001", async () => {
    const [payerBefore, payeeBefore] = [
      await h.chain.balanceOf(PAYER.address),
      await h.chain.balanceOf(PAYEE),
    ];
    const run = await pay(dataDir, "/api/fortune");
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("HTTP 200");
    expect(run.stdout).toContain("Paying by x402 exact");
    expect(run.stdout).toMatch(/"fortune": "[^"]+"/);
    expect(field(run.stdout, "success")).toBe("true");
    expect(field(run.stdout, "network")).toBe(h.chain.network);
    expect(field(run.stdout, "payer")).toBe(PAYER.address);
    const transaction = field(run.stdout, "transaction") as `0x${string}`;
    expect(transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const receipt = await h.chain.publicClient.getTransactionReceipt({ hash: transaction });
    expect(receipt.status).toBe("success");
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 1000n);
    expect(await h.chain.balanceOf(PAYER.address)).toBe(payerBefore - 1000n);
  });

  test("/api/fortune/premium by x402 upto (picked from the 402): 0.003 of 0.005 settled", async () => {
    const [payerBefore, payeeBefore] = [
      await h.chain.balanceOf(PAYER.address),
      await h.chain.balanceOf(PAYEE),
    ];
    const run = await pay(dataDir, "/api/fortune/premium", "--body", '{"category":"love"}');
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("Paying by x402 upto, up to 5000 (0.005)");
    expect(run.stdout).toContain('"category": "love"');
    expect(run.stdout).toContain('"charged": "0.003"');
    expect(field(run.stdout, "amount")).toBe("3000");
    expect(field(run.stdout, "transaction")).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await h.chain.balanceOf(PAYEE)).toBe(payeeBefore + 3000n);
    expect(await h.chain.balanceOf(PAYER.address)).toBe(payerBefore - 3000n);
  });

  test("/api/fortune --scheme mpp: a one-shot MPP charge of 0.001 with its Payment-Receipt", async () => {
    const before = await mppPayeeBalance();
    const run = await pay(dataDir, "/api/fortune", "--scheme", "mpp");
    expect(run.code, run.output).toBe(0);
    expect(run.stdout).toContain("HTTP 200");
    expect(run.stdout).toContain("Receipt (MPP Payment-Receipt):");
    expect(field(run.stdout, "method")).toBe("tempo");
    expect(field(run.stdout, "status")).toBe("success");
    expect(field(run.stdout, "reference")).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await mppPayeeBalance()) - before).toBe(1000n);
  });

  test("/api/fortune/stream --scheme mpp: tokens as they arrive, then the close receipt; tokens × 0.0001 paid", async () => {
    const before = await mppPayeeBalance();
    const run = await pay(dataDir, "/api/fortune/stream", "--scheme", "mpp", "--body", '{"prompt":"hi"}');
    expect(run.code, run.output).toBe(0);
    const streamed = /^HTTP 200 \(text\/event-stream\)\n(.*)\n(\d+) tokens received$/m.exec(run.stdout);
    const tokens = Number(streamed?.[2]);
    expect(tokens).toBeGreaterThan(5);
    expect(streamed?.[1]?.trim().split(/\s+/)).toHaveLength(tokens);
    expect(run.stdout).toContain("Session closed (MPP close receipt):");
    expect(field(run.stdout, "units")).toBe(String(tokens));
    expect(field(run.stdout, "spent")).toBe(String(tokens * 100));
    expect(field(run.stdout, "txHash")).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await mppPayeeBalance()) - before).toBe(BigInt(tokens) * 100n);
  });

  test("an invalid body is a 400: the server's reason, a hint, exit 1, and nothing is charged", async () => {
    const before = await h.chain.balanceOf(PAYER.address);
    const run = await pay(dataDir, "/api/fortune/premium", "--body", '{"category":"fame"}');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain("HTTP 400");
    expect(run.stderr).toContain("VALIDATION_FAILED");
    expect(run.stderr).toContain("check --body");
    const missing = await pay(dataDir, "/api/fortune/premium");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`this route needs a JSON body: --body '{"category":"love"}'`);
    expect(await h.chain.balanceOf(PAYER.address)).toBe(before);
  });

  test("the private key is never printed", () => {
    expect(outputs.length).toBeGreaterThan(0);
    for (const output of outputs) expect(output.toLowerCase()).not.toContain(PAYER.privateKey.slice(2));
  });
});
