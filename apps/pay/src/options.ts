/**
 * Command-line arguments of `npm run pay`, parsed with `node:util` `parseArgs`.
 *
 * @module
 */
import { type ParseArgsOptionsConfig, parseArgs } from "node:util";

/** How to pay: an x402 scheme, or MPP (a one-shot charge, or a session on session routes). */
export type Scheme = "exact" | "upto" | "mpp";

/** The HTTP methods the CLI sends. */
export type Method = "GET" | "POST";

/** What the user asked for. */
export type Options = {
  /** The endpoint's path, e.g. `/api/fortune`. */
  path: string;
  /** JSON text of the request body, validated as JSON; absent: no body. */
  body?: string;
  /** Absent: x402, the scheme the 402 offers (an MPP-only route is paid by MPP). */
  scheme?: Scheme;
  method: Method;
  idempotencyKey?: string;
  /** Cap of an MPP session's channel deposit, in decimal dollars. */
  maxDeposit: string;
  help: boolean;
};

/** A usage mistake: the message is shown with the usage text, exit code 2. */
export class UsageError extends Error {
  override readonly name = "UsageError";
}

/** Default cap of an MPP session's deposit: the largest channel the fortune routes suggest. */
export const DEFAULT_MAX_DEPOSIT = "0.05";

/** The help text. */
export const USAGE = `Usage: npm run pay -- <path> [options]

Pays a fortune endpoint from the local demo wallet (written by \`npm start\` to .data/local.json).

Options:
  --body JSON              request body (premium, dynamic, llm and stream need one)
  --scheme exact|upto|mpp  how to pay (default: the x402 scheme the route asks for;
                           MPP-only routes are paid by MPP)
  --method GET|POST        default POST
  --idempotency-key K      sent as Idempotency-Key: a retry with the same key is not charged again
  --max-deposit USD        cap of an MPP session's channel deposit (default ${DEFAULT_MAX_DEPOSIT})
  -h, --help               this text

Examples:
  npm run pay -- /api/fortune
  npm run pay -- /api/fortune/premium --body '{"category":"love"}'
  npm run pay -- /api/fortune --scheme mpp
  npm run pay -- /api/fortune/stream --scheme mpp --body '{"prompt":"Tell me about tomorrow"}'

The tool gateway from the same wallet (account, credit, keys, a run): npm run pay -- gateway help

Environment: DATA_DIR (default .data) is where local.json is read.`;

const SCHEMES: readonly Scheme[] = ["exact", "upto", "mpp"];
const METHODS: readonly Method[] = ["GET", "POST"];

/** `value` if it is one of `allowed`, else the {@link UsageError} naming `flag`. */
export const oneOf = <T extends string>(value: string, allowed: readonly T[], flag: string): T => {
  const found = allowed.find((candidate) => candidate === value);
  if (!found) throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  return found;
};

/** Parses the arguments after `npm run pay --`; throws {@link UsageError} on a mistake. */
export function parseOptions(argv: readonly string[]): Options {
  const { values, positionals } = parsedArguments(argv, {
    body: { type: "string" },
    scheme: { type: "string" },
    method: { type: "string" },
    "idempotency-key": { type: "string" },
    "max-deposit": { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  if (values.help) return { path: "", method: "POST", maxDeposit: DEFAULT_MAX_DEPOSIT, help: true };
  const [path, ...extra] = positionals;
  if (!path) throw new UsageError("missing the endpoint's path, e.g. /api/fortune");
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(" ")}`);
  if (!path.startsWith("/")) throw new UsageError(`the path must start with "/" (got "${path}")`);

  const method = oneOf((values.method ?? "POST").toUpperCase(), METHODS, "--method");
  const body = values.body;
  if (body !== undefined) {
    try {
      JSON.parse(body);
    } catch {
      throw new UsageError(`--body is not valid JSON: ${body}`);
    }
    if (method === "GET") throw new UsageError("--body cannot be sent with --method GET");
  }
  const maxDeposit = values["max-deposit"] ?? DEFAULT_MAX_DEPOSIT;
  if (!/^\d+(\.\d{1,6})?$/.test(maxDeposit) || Number(maxDeposit) <= 0) {
    throw new UsageError(`--max-deposit must be a positive decimal amount, e.g. 0.05 (got "${maxDeposit}")`);
  }
  const key = values["idempotency-key"];
  if (key !== undefined && key.trim() === "") throw new UsageError("--idempotency-key must not be empty");

  return {
    path,
    method,
    maxDeposit,
    help: false,
    ...(body !== undefined ? { body } : {}),
    ...(values.scheme !== undefined ? { scheme: oneOf(values.scheme, SCHEMES, "--scheme") } : {}),
    ...(key !== undefined ? { idempotencyKey: key } : {}),
  };
}

/**
 * The command line's `--options` (only these, strictly) and positionals; a mistake Node's parser
 * finds is a {@link UsageError}.
 */
export function parsedArguments<const Options extends ParseArgsOptionsConfig>(
  argv: readonly string[],
  options: Options,
) {
  try {
    return parseArgs({ args: [...argv], allowPositionals: true, strict: true, options });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}
