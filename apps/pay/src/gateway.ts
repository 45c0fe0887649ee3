/**
 * The `gateway` commands: the self-serve path of the tool gateway from the demo wallet. Sign-ins
 * with `@x402/extensions`' official helpers; credit paid with the official x402 client (`exact`)
 * or `mppx/client` (a charge), for exactly the amount asked.
 *
 * @module
 */
import type { GatewayCommand } from "./gateway-options.ts";
import type { Io } from "./io.ts";
import type { GatewayTarget } from "./manifest.ts";
import { payMppCharge } from "./pay-mpp.ts";
import { payX402 } from "./pay-x402.ts";
import {
  bodyError,
  formatBody,
  mppReceipt,
  readBody,
  refusalReason,
  statusLine,
  x402Receipt,
} from "./print.ts";
import { fetchSignedIn } from "./sign-in.ts";

const json = (method: string, body?: unknown): RequestInit => ({
  method,
  headers: { "content-type": "application/json" },
  ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
});

/** Atomic units (6 decimals) of a decimal amount, for the clients' spend caps; the server checks it exactly. */
function atomicOf(amount: string): string {
  const [whole = "0", fraction = ""] = amount.split(".");
  return (BigInt(whole || "0") * 1_000_000n + BigInt(fraction.padEnd(6, "0").slice(0, 6) || "0")).toString();
}

/** Runs one gateway command from the demo wallet; resolves to the exit code (0 a 2xx, 1 anything else). */
export async function runGatewayCommand(
  target: GatewayTarget,
  command: GatewayCommand,
  io: Io,
): Promise<number> {
  const base = target.gatewayUrl;
  io.out(`${describe(command)}  (${base}, demo wallet ${target.wallet.address})`);
  try {
    switch (command.command) {
      case "account":
        return report(
          await fetchSignedIn(target, `${base}/v1/accounts`, json("POST", { name: command.name })),
          io,
        );
      case "key":
        return report(
          await fetchSignedIn(target, `${base}/v1/keys`, json("POST", { label: command.label })),
          io,
        );
      case "keys":
        return report(await fetchSignedIn(target, `${base}/v1/keys`, { method: "GET" }), io);
      case "revoke":
        return report(
          await fetchSignedIn(target, `${base}/v1/keys/${encodeURIComponent(command.keyId)}`, {
            method: "DELETE",
          }),
          io,
        );
      case "credit":
        return await credit(target, command, io);
      case "run":
        return report(
          await fetch(`${base}/v1/run`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${command.key}` },
            body: command.body,
          }),
          io,
        );
      case "help":
        return 0;
    }
  } catch (error) {
    io.err(`pay: ${failure(error, base)}`);
    return 1;
  }
}

async function credit(
  target: GatewayTarget,
  command: Extract<GatewayCommand, { command: "credit" }>,
  io: Io,
): Promise<number> {
  const init = json("POST", { amount: command.amount });
  if (command.idempotencyKey)
    (init.headers as Record<string, string>)["idempotency-key"] = command.idempotencyKey;
  const url = `${target.gatewayUrl}/v1/credits`;
  if (command.scheme === "mpp") {
    io.out(`Paying ${command.amount} USD by MPP (one-shot charge)`);
    const response = await payMppCharge(target, url, init, command.amount);
    return report(response, io, mppReceipt(response));
  }
  io.out(`Paying ${command.amount} USD by x402 exact`);
  const amount = /^\d+(\.\d{1,6})?$/.test(command.amount) ? atomicOf(command.amount) : "0";
  const { response } = await payX402(target, url, init, "exact", amount);
  return report(response, io, x402Receipt(response));
}

function describe(command: GatewayCommand): string {
  switch (command.command) {
    case "account":
      return "POST /v1/accounts";
    case "credit":
      return `POST /v1/credits ${command.amount} USD`;
    case "key":
      return "POST /v1/keys";
    case "keys":
      return "GET /v1/keys";
    case "revoke":
      return `DELETE /v1/keys/${command.keyId}`;
    case "run":
      return "POST /v1/run";
    case "help":
      return "help";
  }
}

/** Prints status, body and receipt; explains a refusal; returns the exit code. */
async function report(response: Response, io: Io, receipt?: string): Promise<number> {
  const body = await readBody(response);
  io.out(statusLine(response));
  if (body.text !== "") io.out(formatBody(body));
  if (receipt) io.out(receipt);
  if (response.headers.get("idempotent-replayed") === "true") {
    io.out("Idempotent replay: the stored answer for this Idempotency-Key; not charged again.");
  }
  if (response.ok) return 0;
  if (response.status === 402) io.err(`pay: refused: ${refusalReason(response, body)}`);
  else io.err(`pay: the gateway answered ${response.status}: ${bodyError(body) ?? "no details"}`);
  return 1;
}

/** A one-line explanation of a failure, naming the gateway when it cannot be reached. */
function failure(error: unknown, base: string): string {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as NodeJS.ErrnoException).code === "ECONNREFUSED")
      return `cannot reach ${base}: is \`npm start\` running?`;
  }
  return error instanceof Error ? error.message : String(error);
}
