import { type DestinationStream, type LoggerOptions, pino } from "pino";
import { errorSummary } from "./console.ts";

export type Logger = pino.Logger;

/** Headers whose values are secrets: never written to a log line. */
const SECRET_HEADERS = new Set([
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "x-upstream-key",
  "x-shop-key",
  "payment-signature",
  "x-payment",
  "sign-in-with-x",
  "cookie",
  "set-cookie",
]);

const SECRET_NAME = /token|secret|password|private[-_]?key|api[-_]?key|signature|session/i;

export const REDACTED = "[redacted]";

/** True when a header (or field) of this name carries a secret. */
export function isSecretName(name: string): boolean {
  const lower = name.toLowerCase();
  return SECRET_HEADERS.has(lower) || SECRET_NAME.test(lower);
}

/** A copy of the headers with every secret value replaced by `[redacted]`. */
export function redactHeaders(headers: Headers | Record<string, string>): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  const out: Record<string, string> = {};
  for (const [name, value] of entries) out[name] = isSecretName(name) ? REDACTED : value;
  return out;
}

/**
 * Top-level fields redacted in any log object, as a second net behind
 * {@link redactHeaders}. Top-level paths only: wildcard paths triple the cost of
 * every log line (measured), so secrets are never nested in what we log.
 */
const REDACT_PATHS = [
  "authorization",
  "cookie",
  "password",
  "secret",
  "token",
  "accessToken",
  "refreshToken",
  "apiKey",
  "privateKey",
  "signature",
];

export type LoggerConfig = { level: string; name: string };

/** Standard output, written asynchronously in 4 KiB batches and flushed at least every 250 ms. */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  setInterval(() => stream.flush(), 250).unref();
  return stream;
}

let stdout: DestinationStream | undefined;

/**
 * A JSON logger (pino) that redacts secrets. `destination` defaults to a buffered
 * stdout shared by every logger of the process; tests pass a stream to capture lines.
 */
export function createLogger(config: LoggerConfig, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name: config.name,
    level: config.level,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
    serializers: { headers: redactHeaders, err: errorSummary },
    timestamp: pino.stdTimeFunctions.isoTime,
    base: undefined,
  };
  stdout ??= destination ? undefined : bufferedStdout();
  return pino(options, destination ?? (stdout as DestinationStream));
}
