/**
 * What the CLI prints: the status, the result, the decoded receipts and the reason of
 * a refusal. Everything here formats text; nothing writes or exits.
 *
 * @module
 */
import { decodePaymentRequiredHeader, decodePaymentResponseHeader } from "@x402/core/http";
import { Receipt } from "mppx";
import { formatUnits } from "viem";

/** Token decimals of both LocalUSD (x402) and pathUSD (MPP). */
const DECIMALS = 6;

/** A response's body, read once: its text and, when it is JSON, the parsed value. */
export type ReadBody = { text: string; json?: unknown };

/** Reads a response's body (once). */
export async function readBody(response: Response): Promise<ReadBody> {
  const text = await response.text();
  try {
    return { text, json: JSON.parse(text) };
  } catch {
    return { text };
  }
}

/** `HTTP 200 OK`. */
export function statusLine(response: Response): string {
  return `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
}

/** The body: pretty JSON when it is JSON, else the text as it came. */
export function formatBody(body: ReadBody): string {
  return body.json === undefined ? body.text : JSON.stringify(body.json, null, 2);
}

/** An atomic token amount with its decimal value: `3000 (0.003)`. */
export function formatAmount(atomic: unknown): string {
  const text = String(atomic);
  return /^\d+$/.test(text) ? `${text} (${formatUnits(BigInt(text), DECIMALS)})` : text;
}

function block(title: string, fields: [string, unknown][]): string {
  const present = fields.filter(([, value]) => value !== undefined && value !== null && value !== "");
  const width = Math.max(...present.map(([key]) => key.length));
  return [title, ...present.map(([key, value]) => `  ${`${key}:`.padEnd(width + 1)} ${String(value)}`)].join(
    "\n",
  );
}

/** The decoded x402 `PAYMENT-RESPONSE` header, or undefined when the response has none. */
export function x402Receipt(response: Response): string | undefined {
  const header = response.headers.get("payment-response");
  if (!header) return undefined;
  try {
    const settled = decodePaymentResponseHeader(header);
    return block("Receipt (x402 PAYMENT-RESPONSE):", [
      ["success", settled.success],
      ["transaction", settled.transaction],
      ["network", settled.network],
      ["payer", settled.payer],
      ["amount", settled.amount === undefined ? undefined : formatAmount(settled.amount)],
      ["error", settled.errorReason],
    ]);
  } catch (error) {
    return `Receipt (x402 PAYMENT-RESPONSE): undecodable (${(error as Error).message})`;
  }
}

const RAW_AMOUNT_FIELDS = new Set(["amount", "acceptedCumulative", "spent"]);

/** Every field of an MPP receipt, amounts with their decimal value. */
function mppFields(receipt: Record<string, unknown>): [string, unknown][] {
  return Object.entries(receipt).map(([key, value]) => [
    key,
    RAW_AMOUNT_FIELDS.has(key) ? formatAmount(value) : value,
  ]);
}

/** The decoded MPP `Payment-Receipt` header (mppx `Receipt.deserialize`), or undefined when absent. */
export function mppReceipt(response: Response): string | undefined {
  const header = response.headers.get("payment-receipt");
  if (!header) return undefined;
  try {
    const receipt = Receipt.deserialize(header) as Record<string, unknown>;
    return block("Receipt (MPP Payment-Receipt):", mppFields(receipt));
  } catch (error) {
    return `Receipt (MPP Payment-Receipt): undecodable (${(error as Error).message})`;
  }
}

/** How an MPP session ended: its close receipt, or that no channel was opened (nothing was paid). */
export function sessionEnd(end: { opened: false } | { opened: true; receipt?: object | undefined }): string {
  if (!end.opened) return "Session: no channel was opened; nothing was paid.";
  if (!end.receipt) return "Session closed (the server sent no close receipt).";
  return block("Session closed (MPP close receipt):", mppFields(end.receipt as Record<string, unknown>));
}

/**
 * Why a 402 refused: the x402 `PAYMENT-REQUIRED` header's `error`, else the JSON
 * body's `error` and `message`.
 */
export function refusalReason(response: Response, body: ReadBody): string {
  const header = response.headers.get("payment-required");
  if (header) {
    try {
      const error = decodePaymentRequiredHeader(header).error;
      if (error) return error;
    } catch {
      // fall through to the body
    }
  }
  return bodyError(body) ?? "payment required (the server gave no reason)";
}

/**
 * `error: message` from an error body of the platform's shape, or `title: detail`
 * from a problem document (RFC 9457, as the MPP server answers), if it is one.
 */
export function bodyError(body: ReadBody): string | undefined {
  const json = body.json as Record<string, unknown> | undefined;
  if (typeof json !== "object" || json === null) return undefined;
  const text = (...keys: string[]) =>
    keys.map((key) => json[key]).filter((part) => typeof part === "string" && part !== "");
  const parts = json.error !== undefined ? text("error", "message") : text("title", "detail");
  return parts.length > 0 ? parts.join(": ") : undefined;
}
