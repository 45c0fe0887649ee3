import { type ChildProcess, spawn } from "node:child_process";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Database, openDatabase } from "@app/db";
import type { LocalManifest } from "../../src/platform.ts";
import { platformServices } from "../../src/services.ts";

export const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const PORT_VARIABLES = [
  ...platformServices.map((service) => `${service.name.toUpperCase()}_PORT`),
  "FORTUNE_CHAIN_PORT",
  "GATEWAY_CHAIN_PORT",
  "SANDBOX_PLC_PORT",
  "SANDBOX_PDS2_PORT",
];

export type Launch = { child: ChildProcess; output: () => string; exited: Promise<number | null> };

/** The environment of a process of ours on `dataDir`: every port free, no PostgreSQL. */
export function localEnv(dataDir: string, extraEnv: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    DATA_DIR: dataDir,
    ...extraEnv,
  };
  delete env.DATABASE_URL;
  for (const variable of PORT_VARIABLES) env[variable] ??= "0";
  return env;
}

/** Runs a TypeScript entry point of the repository as its own process, collecting what it prints. */
export function spawnEntry(entry: string, args: string[], env: Record<string, string>): Launch {
  const child = spawn(process.execPath, ["--import", "tsx", entry, ...args], { cwd: ROOT, env });
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Starts `npm start`'s entry point (or another launcher entry) as its own process, every service on a free port. */
export function launch(
  dataDir: string,
  extraEnv: Record<string, string> = {},
  entry = "apps/local/src/main.ts",
): Launch {
  return spawnEntry(entry, [], localEnv(dataDir, extraEnv));
}

/** Runs an operator CLI (`services/<name>/src/cli.ts`) to its end: its exit code and output. */
export async function runCli(
  service: "publisher" | "gateway" | "shop",
  args: string[],
  dataDir: string,
): Promise<{ code: number | null; output: string }> {
  const run = spawnEntry(`services/${service}/src/cli.ts`, args, localEnv(dataDir, { LOG_LEVEL: "warn" }));
  const code = await run.exited;
  return { code, output: run.output() };
}

export async function readManifest(dataDir: string): Promise<LocalManifest> {
  return JSON.parse(await readFile(join(dataDir, "local.json"), "utf8")) as LocalManifest;
}

/** Opens the launcher's PGlite folder: through the running platform, or alone while none runs. */
export async function withStoredDatabase<T>(dataDir: string, work: (db: Database) => Promise<T>): Promise<T> {
  const db = await openDatabase({ dataDir });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Stops a launched process with Ctrl-C and waits for its exit code. */
export async function interrupt(run: Launch): Promise<number | null> {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGINT");
  return run.exited;
}
