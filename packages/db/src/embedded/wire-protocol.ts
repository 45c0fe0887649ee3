/**
 * The few facts of the PostgreSQL frontend/backend protocol (version 3) that serving PGlite to
 * other processes needs: how a client's messages are framed, which of them end a cycle with a
 * ReadyForQuery, and the messages the server itself writes.
 * https://www.postgresql.org/docs/current/protocol-message-formats.html
 */

export const PROTOCOL_V3 = 0x0003_0000;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** PostgreSQL's own limit on one message (1 GiB). */
const MAX_MESSAGE_BYTES = 0x3fff_ffff;

/** The transaction status a ReadyForQuery reports: idle, in a transaction block, or in a failed one. */
export type TransactionStatus = "I" | "T" | "E";

/**
 * Messages after which the backend sends a ReadyForQuery, unless it then waits for more (a COPY):
 * Query, Sync, FunctionCall, CopyDone and CopyFail.
 */
const ENDS_A_CYCLE = new Set(["Q", "S", "F", "c", "f"]);

export function endsACycle(type: string): boolean {
  return ENDS_A_CYCLE.has(type);
}

/** One frontend message: `type` is "" for the untyped messages sent before the startup is done. */
export type FrontendMessage = { type: string; bytes: Buffer };

export class ProtocolViolation extends Error {}

/**
 * Cuts the next whole message off `buffer`, or returns undefined until one has arrived. Before
 * the startup the messages carry no type byte (startup, SSL, GSS and cancel requests).
 */
export function nextMessage(
  buffer: Buffer,
  started: boolean,
): { message: FrontendMessage; rest: Buffer } | undefined {
  const headerBytes = started ? 5 : 4;
  if (buffer.length < headerBytes) return undefined;
  const length = buffer.readInt32BE(started ? 1 : 0);
  if (length < 4 || length > MAX_MESSAGE_BYTES)
    throw new ProtocolViolation(`invalid message length ${length}`);
  const total = length + (started ? 1 : 0);
  if (buffer.length < total) return undefined;
  return {
    message: {
      type: started ? String.fromCharCode(buffer[0] as number) : "",
      bytes: buffer.subarray(0, total),
    },
    rest: buffer.subarray(total),
  };
}

/**
 * Cuts off the messages that can run on PGlite in one call: after the startup, the whole messages
 * waiting up to and including the first that ends a cycle (Parse, Bind, Describe, Execute and
 * Sync arrive together from most clients), never a Terminate with others.
 */
export function nextBatch(
  buffer: Buffer,
  started: boolean,
): { message: FrontendMessage; rest: Buffer } | undefined {
  const first = nextMessage(buffer, started);
  if (!first || !started || first.message.type === "X" || endsACycle(first.message.type)) return first;
  let { rest } = first;
  let type = first.message.type;
  for (;;) {
    const next = nextMessage(rest, true);
    if (!next || next.message.type === "X") break;
    rest = next.rest;
    type = next.message.type;
    if (endsACycle(type)) break;
  }
  return { message: { type, bytes: buffer.subarray(0, buffer.length - rest.length) }, rest };
}

/** The code of an untyped message (its second 32-bit word: a protocol version or a request code). */
export function untypedCode(message: FrontendMessage): number {
  return message.bytes.length >= 8 ? message.bytes.readInt32BE(4) : -1;
}

/** Remembers the last bytes the backend wrote, to read the status of a cycle's closing ReadyForQuery. */
export class ReadyForQueryTail {
  private tail: Buffer = Buffer.alloc(0);

  reset(): void {
    this.tail = Buffer.alloc(0);
  }

  push(chunk: Uint8Array): void {
    this.tail = Buffer.concat([this.tail, chunk]).subarray(-6);
  }

  /** The status of the ReadyForQuery the output ended with, or undefined when it ended otherwise. */
  status(): TransactionStatus | undefined {
    const t = this.tail;
    if (t.length < 6 || t[0] !== 0x5a || t.readInt32BE(1) !== 5) return undefined;
    const status = String.fromCharCode(t[5] as number);
    return status === "I" || status === "T" || status === "E" ? status : undefined;
  }
}

function typed(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** A simple-protocol Query message. */
export function queryMessage(sql: string): Buffer {
  return typed("Q", Buffer.from(`${sql}\0`, "utf8"));
}

/** A Sync message. */
export const SYNC_MESSAGE = typed("S", Buffer.alloc(0));

/** An ErrorResponse with severity, SQLSTATE and message. */
export function errorResponse(severity: "ERROR" | "FATAL", code: string, message: string): Buffer {
  const field = (key: string, value: string) => Buffer.from(`${key}${value}\0`, "utf8");
  return typed(
    "E",
    Buffer.concat([
      field("S", severity),
      field("V", severity),
      field("C", code),
      field("M", message),
      Buffer.from([0]),
    ]),
  );
}
