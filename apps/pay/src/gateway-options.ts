/**
 * Arguments of `npm run pay -- gateway <command>`: the self-serve path from a funded wallet to a
 * gateway account, credit, keys and a tool run.
 *
 * @module
 */
import { oneOf, parsedArguments, UsageError } from "./options.ts";

const CREDIT_SCHEMES = ["exact", "mpp"] as const;

/** What the user asked the gateway for. */
export type GatewayCommand =
  | { command: "account"; name?: string }
  | { command: "credit"; amount: string; scheme: "exact" | "mpp"; idempotencyKey?: string }
  | { command: "key"; label?: string }
  | { command: "keys" }
  | { command: "revoke"; keyId: string }
  | { command: "run"; key: string; body: string }
  | { command: "help" };

/** The help text of the gateway commands. */
export const GATEWAY_USAGE = `Usage: npm run pay -- gateway <command> [options]

Uses the tool gateway from the local demo wallet (written by \`npm start\` to .data/local.json):
signs in with it (Sign-In-With-X) and pays from it (x402 or MPP). No key needed to start.

Commands:
  account [--name N]                       open the wallet's gateway account; prints its first key (once)
  credit AMOUNT [--scheme exact|mpp]       buy AMOUNT USD of credit (0.01 to 100), x402 exact by default
         [--idempotency-key K]             a retry with the same key is not charged again
  key [--label L]                          a new gateway key (printed once)
  keys                                     the account's keys (ids, prefixes, labels, dates)
  revoke KEY_ID                            revoke a key
  run --key gwk_… --body JSON              run a tool (POST /v1/run) with a gateway key

Examples:
  npm run pay -- gateway account
  npm run pay -- gateway credit 0.50
  npm run pay -- gateway credit 0.50 --scheme mpp
  npm run pay -- gateway run --key gwk_… --body '{"provider":"markets","endpoint":"/pm/event","input":{"queryParams":{"ref":"…"}}}'`;

/** Parses the arguments after `npm run pay -- gateway`; throws {@link UsageError} on a mistake. */
export function parseGatewayCommand(argv: readonly string[]): GatewayCommand {
  const { values, positionals } = parsedArguments(argv, {
    name: { type: "string" },
    scheme: { type: "string" },
    "idempotency-key": { type: "string" },
    label: { type: "string" },
    key: { type: "string" },
    body: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  const [command, ...rest] = positionals;
  if (values.help || command === undefined || command === "help") return { command: "help" };
  const none = (allowed: string[]) => {
    const extra = Object.keys(values).filter((name) => !allowed.includes(name));
    if (extra.length > 0) throw new UsageError(`${command} takes no --${extra.join(", --")}`);
  };
  const positional = (count: number, what: string) => {
    if (rest.length !== count) throw new UsageError(`${command} takes ${what}`);
  };
  switch (command) {
    case "account":
      none(["name"]);
      positional(0, "no arguments");
      return { command, ...(values.name !== undefined ? { name: values.name } : {}) };
    case "credit": {
      none(["scheme", "idempotency-key"]);
      positional(1, "the amount, e.g. 0.50");
      const scheme = oneOf(values.scheme ?? "exact", CREDIT_SCHEMES, "--scheme");
      const key = values["idempotency-key"];
      return {
        command,
        amount: rest[0] as string,
        scheme,
        ...(key !== undefined ? { idempotencyKey: key } : {}),
      };
    }
    case "key":
      none(["label"]);
      positional(0, "no arguments");
      return { command, ...(values.label !== undefined ? { label: values.label } : {}) };
    case "keys":
      none([]);
      positional(0, "no arguments");
      return { command };
    case "revoke":
      none([]);
      positional(1, "the key's id");
      return { command, keyId: rest[0] as string };
    case "run": {
      none(["key", "body"]);
      positional(0, "--key and --body");
      if (!values.key) throw new UsageError("run needs --key gwk_…");
      if (!values.body) throw new UsageError("run needs --body JSON (provider, endpoint, input)");
      try {
        JSON.parse(values.body);
      } catch {
        throw new UsageError(`--body is not valid JSON: ${values.body}`);
      }
      return { command, key: values.key, body: values.body };
    }
    default:
      throw new UsageError(`unknown gateway command "${command}"`);
  }
}
