/**
 * `npm run pay`: parse the arguments, read `local.json`, pay the endpoint by x402 or
 * MPP, print the result and the receipt; `npm run pay -- gateway …`: the gateway's self-serve
 * path (account, credit, keys, a run) from the same wallet. Exit codes: 0 paid (2xx), 1 refused or
 * failed, 2 usage or setup mistake.
 *
 * @module
 */

import { GATEWAY_USAGE, type GatewayCommand, parseGatewayCommand } from "./gateway-options.ts";
import type { Io } from "./io.ts";
import {
  type GatewayTarget,
  ManifestError,
  type PayTarget,
  readGatewayManifest,
  readManifest,
} from "./manifest.ts";
import { type Options, parseOptions, USAGE, UsageError } from "./options.ts";

/** The settings the CLI reads from the environment, once, at start. */
export type PayEnv = {
  /** Folder holding `local.json` (default `.data`), as for `npm start`. */
  dataDir: string;
};

/** Reads {@link PayEnv} from an environment (`DATA_DIR`). */
export function payEnv(env: Record<string, string | undefined>): PayEnv {
  return { dataDir: env.DATA_DIR || ".data" };
}

/** Runs the CLI; resolves to the exit code. */
export async function run(argv: readonly string[], env: PayEnv, io: Io): Promise<number> {
  if (argv[0] === "gateway") return runGateway(argv.slice(1), env, io);
  let options: Options;
  try {
    options = parseOptions(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`pay: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (options.help) {
    io.out(USAGE);
    return 0;
  }
  let target: PayTarget;
  try {
    target = await readManifest(env.dataDir);
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    io.err(`pay: ${error.message}`);
    return 2;
  }
  // The payment clients load only now: a usage or setup mistake is answered at once.
  const { pay } = await import("./pay.ts");
  return pay(target, options, io);
}

/** `npm run pay -- gateway <command>`: the gateway's self-serve path from the demo wallet. */
async function runGateway(argv: readonly string[], env: PayEnv, io: Io): Promise<number> {
  let command: GatewayCommand;
  try {
    command = parseGatewayCommand(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`pay: ${error.message}\n\n${GATEWAY_USAGE}`);
    return 2;
  }
  if (command.command === "help") {
    io.out(GATEWAY_USAGE);
    return 0;
  }
  let target: GatewayTarget;
  try {
    target = await readGatewayManifest(env.dataDir);
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    io.err(`pay: ${error.message}`);
    return 2;
  }
  const { runGatewayCommand } = await import("./gateway.ts");
  return runGatewayCommand(target, command, io);
}
