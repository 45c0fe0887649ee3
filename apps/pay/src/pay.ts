/**
 * Paying one request: by x402 (the scheme the route offers, or `--scheme`), or by MPP
 * (a charge, or a session on session routes); then printing what came back.
 *
 * @module
 */
import type { Io } from "./io.ts";
import type { PayTarget } from "./manifest.ts";
import type { Options } from "./options.ts";
import { payMppCharge, payMppSession, payMppStream } from "./pay-mpp.ts";
import { MppOnlyRoute, PaymentError, payX402 } from "./pay-x402.ts";
import {
  bodyError,
  formatAmount,
  formatBody,
  mppReceipt,
  readBody,
  refusalReason,
  sessionEnd,
  statusLine,
  x402Receipt,
} from "./print.ts";
import { bodyExample, mppModeOf } from "./routes.ts";

/**
 * Pays `options.path` on the fortune service from the demo wallet and prints the
 * status, the result and the receipt; resolves to the exit code (0 paid, 1 refused or failed).
 * Without `--scheme`, x402 is tried, and a route that offers only MPP is paid by MPP.
 */
export async function pay(target: PayTarget, options: Options, io: Io): Promise<number> {
  const url = `${target.fortuneUrl}${options.path}`;
  io.out(`${options.method} ${url}  (demo wallet ${target.wallet.address})`);
  try {
    if (options.scheme === "mpp") return await payByMpp(target, url, options, io);
    try {
      return await payByX402(target, url, options, io);
    } catch (error) {
      if (!(error instanceof MppOnlyRoute) || options.scheme !== undefined) throw error;
      io.out("This route is paid by MPP only: paying by MPP.");
      return await payByMpp(target, url, options, io);
    }
  } catch (error) {
    io.err(`pay: ${failure(error, target)}`);
    return 1;
  }
}

/** A fresh request (the body is a string, so it can be sent again on the paid retry). */
function requestInit(options: Options): Omit<RequestInit, "signal"> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.idempotencyKey !== undefined) headers["idempotency-key"] = options.idempotencyKey;
  return {
    method: options.method,
    headers,
    ...(options.body !== undefined ? { body: options.body } : {}),
  };
}

async function payByX402(target: PayTarget, url: string, options: Options, io: Io): Promise<number> {
  const scheme = options.scheme === "exact" || options.scheme === "upto" ? options.scheme : undefined;
  const { response, offered } = await payX402(target, url, requestInit(options), scheme);
  const accept = offered?.accepts[0];
  if (accept) io.out(`Paying by x402 ${accept.scheme}, up to ${formatAmount(accept.amount)}`);
  return report(response, options, io, x402Receipt(response));
}

async function payByMpp(target: PayTarget, url: string, options: Options, io: Io): Promise<number> {
  const init = requestInit(options);
  const mode = mppModeOf(options.path);
  if (mode === "charge") {
    io.out("Paying by MPP (one-shot charge)");
    const response = await payMppCharge(target, url, init);
    return report(response, options, io, mppReceipt(response));
  }
  if (mode === "session") {
    io.out(`Paying by MPP session (request mode, deposit up to ${options.maxDeposit})`);
    const session = await payMppSession(target, url, init, options.maxDeposit);
    let code = 1;
    try {
      code = await report(session.response, options, io, mppReceipt(session.response));
    } finally {
      io.out(sessionEnd(await session.close()));
    }
    return code;
  }
  io.out(`Paying by MPP session over SSE (deposit up to ${options.maxDeposit})`);
  const stream = await payMppStream(target, url, init, options.maxDeposit);
  let code = 1;
  try {
    if (stream.kind === "refused") {
      code = await report(stream.response, options, io, undefined);
    } else {
      code = await printStream(stream.tokens, io);
    }
  } finally {
    io.out(sessionEnd(await stream.close()));
  }
  return code;
}

async function printStream(tokens: AsyncIterable<string>, io: Io): Promise<number> {
  io.out("HTTP 200 (text/event-stream)");
  let count = 0;
  try {
    for await (const token of tokens) {
      io.write(token);
      count += 1;
    }
  } catch (error) {
    io.write("\n");
    io.err(`pay: the stream stopped after ${count} tokens: ${(error as Error).message}`);
    return 1;
  }
  io.write("\n");
  io.out(`${count} tokens received`);
  return 0;
}

/** Prints status, body and receipt; explains a refusal; returns the exit code. */
async function report(
  response: Response,
  options: Options,
  io: Io,
  receipt: string | undefined,
): Promise<number> {
  const body = await readBody(response);
  io.out(statusLine(response));
  if (body.text !== "") io.out(formatBody(body));
  if (receipt) io.out(receipt);
  if (response.headers.get("idempotent-replayed") === "true") {
    io.out("Idempotent replay: the stored response for this Idempotency-Key; not charged again.");
  }
  if (response.ok) {
    if (!receipt) io.out("No payment receipt: nothing was charged for this response.");
    return 0;
  }
  if (response.status === 402) {
    io.err(`pay: payment refused: ${refusalReason(response, body)}`);
    return 1;
  }
  io.err(`pay: the server answered ${response.status}: ${bodyError(body) ?? "no details"}`);
  if (response.status === 400) {
    const example = bodyExample(options.path);
    if (options.body === undefined && example) {
      io.err(`pay: this route needs a JSON body: --body '${example}'`);
    } else if (options.body !== undefined) {
      io.err(`pay: check --body${example ? ` (e.g. --body '${example}')` : ""}; nothing was charged`);
    }
  }
  return 1;
}

/** A one-line explanation of a failure, naming the service when it cannot be reached. */
function failure(error: unknown, target: PayTarget): string {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) {
    if ((cause as NodeJS.ErrnoException).code === "ECONNREFUSED") {
      return `cannot reach ${target.fortuneUrl}: is \`npm start\` running?`;
    }
  }
  const message = error instanceof Error ? error.message : String(error);
  return error instanceof PaymentError ? `payment failed: ${message}` : message;
}
