import { format } from "node:util";
import type { Logger } from "./logger.ts";

const URL_PATTERN = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const MAX_TEXT = 300;

/**
 * A URL reduced to its scheme and host: RPC and API URLs carry keys in their paths, queries and
 * user info (`https://rpc.example/v2/<key>`), and those never reach a log line.
 */
export function scrubUrls(text: string): string {
  return text.replace(URL_PATTERN, (url) => {
    try {
      const parsed = new URL(url);
      return `${parsed.protocol}//${parsed.host}/…`;
    } catch {
      return "<url>";
    }
  });
}

/**
 * What a log line may say about an error: its type, code and first line (viem's short message,
 * not its details: those hold RPC URLs and request bodies), URLs scrubbed, and the stack frames.
 */
export function errorSummary(error: unknown): {
  type?: string;
  code?: unknown;
  message: string;
  stack?: string;
} {
  if (!(error instanceof Error)) return { message: scrubUrls(String(error)).slice(0, MAX_TEXT) };
  const { shortMessage, code } = error as Error & { shortMessage?: unknown; code?: unknown };
  const text = typeof shortMessage === "string" ? shortMessage : error.message;
  const frames = (error.stack ?? "")
    .split("\n")
    .filter((line) => /^\s+at /.test(line))
    .slice(0, 12)
    .join("\n");
  return {
    type: error.name,
    ...(typeof code === "string" || typeof code === "number" ? { code } : {}),
    message: scrubUrls(text.split("\n")[0] ?? "").slice(0, MAX_TEXT),
    ...(frames ? { stack: scrubUrls(frames) } : {}),
  };
}

const consoleMethods = ["error", "warn", "info", "log", "debug"] as const;

/**
 * Sends what libraries write to `console` (mppx prints raw viem errors with RPC URLs and request
 * bodies) through the logger instead of stderr, summarised as {@link errorSummary} does. Returns
 * a function that restores `console`.
 */
export function routeConsoleTo(logger: Logger): () => void {
  const original = consoleMethods.map((method) => [method, console[method]] as const);
  for (const method of consoleMethods) {
    const level = method === "error" || method === "warn" ? "warn" : "debug";
    console[method] = (...args: unknown[]) => {
      const errors = args.filter((arg) => arg instanceof Error).map(errorSummary);
      const text = scrubUrls(format(...args.filter((arg) => !(arg instanceof Error)))).slice(0, MAX_TEXT);
      logger[level]({ console: method, ...(errors.length > 0 ? { errors } : {}) }, text.split("\n")[0] ?? "");
    };
  }
  return () => {
    for (const [method, fn] of original) console[method] = fn as never;
  };
}
