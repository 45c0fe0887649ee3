/**
 * Starts a local anvil node (from the `@foundry-rs/anvil` npm package) on loopback.
 *
 * @module
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, resolve as resolvePath } from "node:path";

/** Options for {@link startAnvil}. */
export interface StartAnvilOptions {
  /** Loopback address to bind (`127.0.0.1` default; `::1` and `localhost` also accepted). */
  host?: string;
  /** TCP port; `0`/undefined lets anvil pick a free one. */
  port?: number;
  /** Chain id (default 1337). */
  chainId?: number;
  /**
   * Persist chain state in this JSON file: loaded at start if it exists, written when the node
   * stops (SIGTERM) and every `stateIntervalSeconds`. Relative paths resolve from `process.cwd()`.
   */
  stateFile?: string;
  /** With `stateFile`: also dump state every N seconds (default 5), so a crash loses little. 0 disables. */
  stateIntervalSeconds?: number;
  /** Milliseconds to wait for the node to answer `eth_chainId` (default 20000). */
  startTimeoutMs?: number;
  /** Extra anvil CLI arguments, appended last. */
  extraArgs?: readonly string[];
}

/** A running anvil node. */
export interface AnvilHandle {
  /** `http://<host>:<port>` */
  readonly rpcUrl: string;
  readonly chainId: number;
  readonly port: number;
  /** OS process id of the anvil binary. */
  readonly pid: number;
  /** Stops the node (SIGTERM, so a state file is written; SIGKILL after 10 s). Idempotent. */
  stop(): Promise<void>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost)$/;
const live = new Set<ChildProcess>();
let exitHooksInstalled = false;

/**
 * Absolute path of the anvil binary shipped by `@foundry-rs/anvil`'s platform package
 * (the same lookup its `bin.mjs` does), never taken from PATH.
 */
export function resolveAnvilBinary(): string {
  const require = createRequire(import.meta.url);
  const wrapperDir = dirname(require.resolve("@foundry-rs/anvil/package.json"));
  const arch = process.arch === "x64" ? "amd64" : process.arch;
  const exe = process.platform === "win32" ? "anvil.exe" : "anvil";
  const platformPkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  try {
    const fromWrapper = createRequire(resolvePath(wrapperDir, "package.json"));
    const candidate = fromWrapper.resolve(`${platformPkg}/bin/${exe}`);
    if (existsSync(candidate)) return candidate;
  } catch {
    // fall through
  }
  const dist = resolvePath(wrapperDir, "..", "dist", exe);
  if (existsSync(dist)) return dist;
  throw new Error(`anvil binary not found: install @foundry-rs/anvil (platform package ${platformPkg})`);
}

function installExitHooks(): void {
  if (exitHooksInstalled) return;
  exitHooksInstalled = true;
  const killAll = (): void => {
    for (const child of live) {
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
    }
  };
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    const handler = (): void => {
      killAll();
      // If nobody else handles this signal, keep Node's default behaviour (exit by that signal).
      if (process.listenerCount(signal) === 1) {
        process.off(signal, handler);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, handler);
  }
}

/**
 * Starts anvil with `--network tempo --hardfork T4` (Permit2, Multicall3, the CREATE2 deployer and
 * pathUSD are predeployed; Tempo transactions work for MPP), bound to loopback only, and resolves
 * once it answers `eth_chainId` with the expected id. The child is killed on `stop()` and when
 * this process exits.
 *
 * Mining is mixed: every transaction is mined at once, and an empty block is mined every second
 * besides, so the latest block's time follows the clock. Tempo refuses a transaction whose
 * `validBefore` is more than 30 s past the latest block, and MPP clients sign "now + 25 s": on a
 * chain that only mined on demand, every MPP payment failed once it had been idle a few seconds.
 */
export async function startAnvil(options: StartAnvilOptions = {}): Promise<AnvilHandle> {
  const host = options.host ?? "127.0.0.1";
  if (!LOOPBACK.test(host)) throw new Error(`startAnvil: refusing to bind non-loopback host ${host}`);
  const chainId = options.chainId ?? 1337;
  const args = [
    "--host",
    host === "localhost" ? "127.0.0.1" : host,
    "--port",
    String(options.port ?? 0),
    "--chain-id",
    String(chainId),
    "--network",
    "tempo",
    "--hardfork",
    "T4",
    "--block-time",
    "1",
    "--mixed-mining",
  ];
  if (options.stateFile) {
    const stateFile = resolvePath(options.stateFile);
    mkdirSync(dirname(stateFile), { recursive: true });
    args.push("--state", stateFile);
    const interval = options.stateIntervalSeconds ?? 5;
    if (interval > 0) args.push("--state-interval", String(interval));
  }
  if (options.extraArgs) args.push(...options.extraArgs);

  installExitHooks();
  const child = spawn(resolveAnvilBinary(), args, { stdio: ["ignore", "pipe", "pipe"] });
  live.add(child);
  // Do not keep this process alive just for anvil: a forgotten stop() must not hang a test run or
  // a script; the exit hook still terminates the child.
  child.unref();
  for (const stream of [child.stdout, child.stderr]) (stream as unknown as { unref?: () => void })?.unref?.();
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => {
    child.once("exit", () => {
      exited = true;
      live.delete(child);
      resolve();
    });
  });

  let output = "";
  const keepTail = (chunk: Buffer): void => {
    output = (output + chunk.toString("utf8")).slice(-8192);
  };
  child.stderr?.on("data", keepTail);

  const stop = async (): Promise<void> => {
    if (exited) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await exitPromise;
    clearTimeout(timer);
  };

  const timeoutMs = options.startTimeoutMs ?? 20_000;
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`anvil did not start in ${timeoutMs} ms`)), timeoutMs);
      child.stdout?.on("data", (chunk: Buffer) => {
        keepTail(chunk);
        const match = /Listening on [^\s]*:(\d+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      });
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once("exit", (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`anvil exited during start (code ${code}, signal ${signal})`));
      });
    });
    const urlHost = host.includes(":") ? `[${host}]` : host === "localhost" ? "127.0.0.1" : host;
    const rpcUrl = `http://${urlHost}:${port}`;
    await waitForChainId(rpcUrl, chainId, timeoutMs);
    if (child.pid === undefined) throw new Error("anvil has no pid");
    return { rpcUrl, chainId, port, pid: child.pid, stop };
  } catch (err) {
    await stop();
    const tail = output.trim().split("\n").slice(-5).join("\n");
    throw new Error(`${(err as Error).message}${tail ? `\n--- anvil output ---\n${tail}` : ""}`, {
      cause: err,
    });
  }
}

async function waitForChainId(rpcUrl: string, expected: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(rpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] }),
      });
      const body = (await res.json()) as { result?: string };
      if (body.result !== undefined) {
        const got = Number(BigInt(body.result));
        if (got !== expected) throw new Error(`anvil answered chain id ${got}, expected ${expected}`);
        return;
      }
    } catch (err) {
      if ((err as Error).message.startsWith("anvil answered")) throw err;
      lastError = err;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`anvil at ${rpcUrl} did not answer eth_chainId: ${String(lastError)}`);
}
