import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { ApiError, type PlatformErrorCode } from "../errors.ts";

/** What a request Node could not parse is answered with, by Node's error code (anything else: 400). */
const ANSWERS: Readonly<Record<string, { code: PlatformErrorCode; message: string }>> = {
  HPE_HEADER_OVERFLOW: {
    code: "REQUEST_HEADER_FIELDS_TOO_LARGE",
    message: "The request's headers are larger than this server accepts.",
  },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: {
    code: "PAYLOAD_TOO_LARGE",
    message: "The request body's chunk extensions are larger than this server accepts.",
  },
  ERR_HTTP_REQUEST_TIMEOUT: {
    code: "REQUEST_TIMEOUT",
    message: "The request did not arrive in time.",
  },
};
const MALFORMED = { code: "BAD_REQUEST", message: "The request is not valid HTTP." } as const;

/** The socket of a Node HTTP server's connection, with the response it is writing, if any (Node's own field). */
type ConnectionSocket = Duplex & { _httpMessage?: { headersSent?: boolean } | null };

/**
 * The raw HTTP/1.1 answer to a request Node refused before any route saw it: the platform's JSON
 * error body (never a stack, nothing of the request), `Connection: close`.
 */
export function clientErrorResponse(errorCode: string | undefined): string {
  const { code, message } = ANSWERS[errorCode ?? ""] ?? MALFORMED;
  const error = new ApiError(code, message);
  const body = error.toJson();
  return [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ""}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    body,
  ].join("\r\n");
}

/** Node's own answer to a request it refuses while another of the connection's is being served. */
function nodeDefaultResponse(errorCode: string | undefined): string {
  const status =
    errorCode === "HPE_HEADER_OVERFLOW" ? 431 : errorCode === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ""}\r\nConnection: close\r\n\r\n`;
}

/**
 * A Node HTTP server's `clientError` listener: a request too large to parse (431 for its
 * headers), malformed (400) or whose headers came too late (408) gets the platform's JSON error
 * instead of Node's empty answer, and its connection is closed at once, as Node closes it. While a
 * request of the connection is being served (a body cut short mid-upload, say), it does exactly
 * what Node does: its bare answer, unless that response has begun, then the socket destroyed, so
 * that the request being served sees its client gone. A connection the client reset, or that can
 * no longer be written to, is just destroyed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const served = (socket as ConnectionSocket)._httpMessage;
  if (error.code !== "ECONNRESET" && socket.writable && served?.headersSent !== true) {
    socket.write(served ? nodeDefaultResponse(error.code) : clientErrorResponse(error.code));
  }
  // Destroyed with the error, as Node does: a request being served fails with it (an upload cut
  // short is seen as cut short). The server's socket listens for errors, so none goes uncaught.
  socket.destroy(error);
}
