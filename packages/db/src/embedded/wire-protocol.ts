/**
 * The few facts of the PostgreSQL frontend/backend protocol (version 3) that serving PGlite to
 * other processes needs: how a client's messages are framed, which of them end a cycle with a
 * ReadyForQuery, and the messages the server itself writes.
 * https://www.postgresql.org/docs/current/protocol-message-formats.html
 */

export const PROTOCOL_V3 = 0x0003_0000;

/** PostgreSQL's socket file name for the default port, so `psql -h <dir>` finds it. */
export const SOCKET_FILE = ".s.PGSQL.5432";

/** The PostgreSQL URL of a Unix socket directory (node-postgres and libpq both read it). */
export function socketUrl(dir: string): string {
  return `postgres://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`;
}
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** PostgreSQL's own limit on one message (1 GiB). */
const MAX_MESSAGE_BYTES = 0x3fff_ffff;

/** PostgreSQL's limit on a startup packet. */
const MAX_STARTUP_BYTES = 10_000;

/** How many bytes the buffer must hold before the next message can be cut off (0 when it can be now). */
export function bytesNeeded(buffer: Buffer, started: boolean): number {
  const headerBytes = started ? 5 : 4;
  if (buffer.length < headerBytes) return headerBytes;
  const total = buffer.readInt32BE(started ? 1 : 0) + (started ? 1 : 0);
  return buffer.length >= total ? 0 : total;
}

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
  const limit = started ? MAX_MESSAGE_BYTES : MAX_STARTUP_BYTES;
  if (length < 4 || length > limit) throw new ProtocolViolation(`invalid message length ${length}`);
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

/**
 * The frontend messages the owner passes to PGlite after the startup: Bind, Close, Describe,
 * Execute, Flush, Parse, Query, Sync and Terminate. PGlite has no answer to others (a
 * FunctionCall with arguments gets none either):
 * a message of an unknown type, and the COPY-in messages (CopyData, CopyDone, CopyFail), leave
 * its backend spinning for good, so they end the connection instead.
 */
const PASSED_TO_PGLITE = new Set(["B", "C", "D", "E", "H", "P", "Q", "S", "X"]);

/** COPY … FROM STDIN: PGlite would read its own standard input, fail and spin for good. */
const COPY_FROM_STDIN = /\bcopy\b.*\bfrom stdin\b/;
/** A client encoding set (`SET client_encoding`, `SET NAMES`, `set_config`): PGlite hangs on non-ASCII text under any but UTF8. */
const ENCODING_SET =
  /\bset (?:session |local )?(?:client_encoding|names)\b([^;]*)|set_config ?\( ?'client_encoding' ?,([^;]*)/g;
const UTF8 = /\b(?:utf-?8|unicode)\b/;

/**
 * A statement's text as the checks read it: comments and double quotes (quoted identifiers) taken
 * out, every run of whitespace one space, lower case. Stricter than PostgreSQL's lexer (a string
 * literal is read as code), never looser.
 */
export function normalisedSql(sql: string): string {
  return sql
    .replace(/--[^\n]*/g, " ")
    .replace(/\/\*[\s\S]*?(?:\*\/|$)/g, " ")
    .replaceAll('"', "")
    .replace(/\s+/g, " ")
    .toLowerCase();
}

function setsAnotherEncoding(sql: string): boolean {
  for (const match of sql.matchAll(ENCODING_SET)) {
    if (!UTF8.test(match[1] ?? match[2] ?? "")) return true;
  }
  return false;
}

/** The SQL texts of a batch's Query and Parse messages. */
export function sqlTexts(batch: Buffer): string[] {
  const texts: string[] = [];
  for (let at = 0; at + 5 <= batch.length; ) {
    const type = String.fromCharCode(batch[at] as number);
    const end = at + 1 + batch.readInt32BE(at + 1);
    const body = batch.subarray(at + 5, end);
    if (type === "Q") texts.push(body.toString("utf8"));
    if (type === "P") texts.push(body.subarray(body.indexOf(0) + 1).toString("utf8"));
    at = end;
  }
  return texts;
}

/**
 * Why a batch of typed messages must not reach PGlite (it would leave PGlite's backend hung), or
 * undefined when it may: the SQLSTATE and message the connection is ended with.
 */
export function refusal(batch: Buffer): { code: string; message: string } | undefined {
  for (let at = 0; at + 5 <= batch.length; at += 1 + batch.readInt32BE(at + 1)) {
    const type = String.fromCharCode(batch[at] as number);
    if (!PASSED_TO_PGLITE.has(type)) {
      return {
        code: "08P01",
        message: `the embedded database does not take protocol message ${JSON.stringify(type)}`,
      };
    }
  }
  for (const sql of sqlTexts(batch).map(normalisedSql)) {
    if (COPY_FROM_STDIN.test(sql)) {
      return { code: "0A000", message: "the embedded database does not take COPY FROM STDIN: use INSERT" };
    }
    if (setsAnotherEncoding(sql)) {
      return { code: "0A000", message: "the embedded database speaks UTF8 only" };
    }
  }
  return undefined;
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

/** NegotiateProtocolVersion: the server speaks protocol 3.0 (a client asked for a later 3.x). */
export function negotiateProtocolV30(): Buffer {
  const message = Buffer.alloc(13);
  message.write("v", 0, "latin1");
  message.writeInt32BE(12, 1);
  message.writeInt32BE(0, 5);
  message.writeInt32BE(0, 9);
  return message;
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
