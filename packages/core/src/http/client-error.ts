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

/**
 * A Node HTTP server's `clientError` listener: a request too large to parse (431 for its
 * headers), malformed (400) or whose headers came too late (408) gets the platform's JSON error
 * instead of Node's empty answer, and its connection is closed. Nothing is written to a socket
 * that can no longer be written to, or whose response is already under way (an answer then
 * would corrupt it, as Node itself avoids); a connection the client reset is just closed.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as ConnectionSocket)._httpMessage?.headersSent === true;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(error.code));
  // Whatever the client still sends is not read: the connection goes once the answer is out.
  socket.once("finish", () => socket.destroy());
}
