import { chmod, mkdir, mkdtemp, rm, unlink } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { PGlite } from "@electric-sql/pglite";
import {
  mayChangeSettings,
  reportsASetting,
  resetSettings,
  restoreSettings,
  type SessionSettings,
  saveAndReset,
} from "./session-settings.ts";
import {
  bytesNeeded,
  CANCEL_REQUEST,
  endsACycle,
  errorResponse,
  type FrontendMessage,
  GSSENC_REQUEST,
  negotiateProtocolV30,
  nextBatch,
  PROTOCOL_V3,
  ProtocolViolation,
  queryMessage,
  ReadyForQueryTail,
  refusal,
  SOCKET_FILE,
  SSL_REQUEST,
  SYNC_MESSAGE,
  socketUrl,
  type TransactionStatus,
  untypedCode,
} from "./wire-protocol.ts";

/**
 * How long a connection may keep the database to itself while sending nothing (an open
 * transaction, or an extended-protocol cycle not yet synced). PGlite is one session: while one
 * connection holds it, every other statement waits, the platform's included. Longer than the
 * platforms' token calls (30 s) that a worker's transaction may wait for.
 */
export const SESSION_IDLE_TIMEOUT_MS = 60_000;

/** Output a connection may leave unread before the owner stops running its next messages. */
const MAX_UNSENT_OUTPUT = 8 * 1024 * 1024;

/** How long a connection ended with an error may take to close its end before it is cut. */
const FAILED_SOCKET_GRACE_MS = 1_000;

/** The longest Unix socket path the platforms accept (macOS: 104 bytes with its NUL). */
const MAX_SOCKET_PATH = 103;

export type WireServer = {
  /** A PostgreSQL URL reaching the database (node-postgres and libpq both read it). */
  readonly url: string;
  close(): Promise<void>;
};

/**
 * Takes PGlite's transaction lock (the one its own `query` and `transaction` take) and keeps it
 * until the returned function is called, so a connection's statements never interleave with
 * another's or with the owning process's own.
 */
function takeSession(pg: PGlite): Promise<() => void> {
  return new Promise((granted) => {
    void pg._runExclusiveTransaction(() => new Promise<void>((release) => granted(release)));
  });
}

/**
 * One client connection. Messages are run on PGlite a cycle at a time; the connection holds the
 * session from the first message of a cycle until PGlite is idle again (a ReadyForQuery with
 * status I), so an open transaction or an unsynced extended-protocol cycle is never interleaved.
 * Its settings are its own: saved and reset when it lets the session go, put back when it takes
 * it again (`session-settings.ts`).
 */
class WireConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes the buffer must hold before its next message is whole. */
  private needed = 0;
  private started = false;
  private releaseSession: (() => void) | undefined;
  private cycleOpen = false;
  private status: TransactionStatus = "I";
  /** Set when a batch since the session was taken may have changed a setting. */
  private settingsTouched = false;
  private settings: SessionSettings = [];
  private draining: Promise<void> | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly tail = new ReadyForQueryTail();
  readonly finished: Promise<void>;

  constructor(
    private readonly pg: PGlite,
    private readonly socket: Socket,
    private readonly idleTimeoutMs: number,
    /** Whether other connections are open: the last one to close discards what the session kept. */
    private readonly othersConnected: () => boolean,
  ) {
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => {
      // Bytes alone do not restart the idle clock: only a whole message run does. A large message
      // is joined once, when all of it is here, not copied again with every chunk.
      this.pending.push(chunk);
      this.pendingBytes += chunk.length;
      if (this.draining || this.buffer.length + this.pendingBytes < this.needed) return;
      this.drain();
    });
    socket.on("error", () => {
      // A client gone mid-write: the close that follows cleans up.
    });
    this.finished = new Promise((done) => socket.once("close", () => void this.cleanUp().finally(done)));
  }

  private drain(): void {
    if (this.draining) return;
    this.draining = this.runBuffered().finally(() => {
      this.draining = undefined;
      // Bytes that came while the last batch ran, and complete a message.
      if (!this.closed && this.pendingBytes > 0 && this.buffer.length + this.pendingBytes >= this.needed) {
        this.drain();
      }
    });
  }

  /** Joins the bytes received since the last look to the buffer. */
  private absorbPending(): void {
    if (this.pending.length === 0) return;
    this.buffer = Buffer.concat([this.buffer, ...this.pending]);
    this.pending = [];
    this.pendingBytes = 0;
  }

  private async runBuffered(): Promise<void> {
    let ran = false;
    try {
      for (;;) {
        this.absorbPending();
        const next = nextBatch(this.buffer, this.started);
        if (!next || this.closed) {
          this.needed = bytesNeeded(this.buffer, this.started);
          break;
        }
        this.buffer = next.rest;
        this.clearIdleTimer();
        await this.handle(next.message);
        ran = true;
        if (this.socket.writableLength > MAX_UNSENT_OUTPUT) await this.outputSent();
      }
    } catch (error) {
      const text = error instanceof ProtocolViolation ? error.message : "the embedded database failed";
      this.fail("08P01", text);
      return;
    }
    if (ran && this.releaseSession && !this.closed) this.startIdleTimer();
  }

  /**
   * Waits until a client that is slow to read has taken most of its output, so one that never
   * reads cannot make the owner buffer without end; one that holds the session meanwhile is
   * ended by the idle timeout.
   */
  private outputSent(): Promise<void> {
    if (this.releaseSession) this.startIdleTimer();
    return new Promise((resolve) => {
      const done = () => {
        this.socket.off("drain", done);
        this.socket.off("close", done);
        resolve();
      };
      this.socket.on("drain", done);
      this.socket.on("close", done);
    });
  }

  /** Runs one message, or a batch of typed messages (`type`: the last one's). */
  private async handle(message: FrontendMessage): Promise<void> {
    if (!this.started) {
      const code = untypedCode(message);
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        this.socket.write("N");
        return;
      }
      if (code === CANCEL_REQUEST) {
        this.socket.destroy();
        return;
      }
      if (code >>> 16 !== 3) throw new ProtocolViolation(`unsupported protocol ${code}`);
      if (code !== PROTOCOL_V3) {
        // A later 3.x (libpq's max_protocol_version=3.2): answered with the version PGlite speaks.
        this.socket.write(negotiateProtocolV30());
        message.bytes.writeInt32BE(PROTOCOL_V3, 4);
      }
      this.started = true;
    } else if (message.type === "X") {
      // Restored before the socket ends, so a client whose close has resolved finds it done.
      this.closed = true;
      await this.restoreSession();
      this.socket.end();
      return;
    }
    const refused = message.type === "" ? undefined : refusal(message.bytes);
    if (refused) return this.fail(refused.code, refused.message);
    await this.takeSession();
    if (message.type !== "" && mayChangeSettings(message.bytes)) this.settingsTouched = true;
    await this.run(message.bytes, (data) => this.socket.write(data));
    if (message.type === "" || endsACycle(message.type)) {
      const status = this.tail.status();
      this.cycleOpen = status === undefined;
      if (status) this.status = status;
    } else {
      this.cycleOpen = true;
    }
    if (!this.cycleOpen && this.status === "I") await this.letGo();
  }

  /** Takes the session (if not held) and puts this connection's settings back on it. */
  private async takeSession(): Promise<void> {
    if (this.releaseSession) return;
    this.releaseSession = await takeSession(this.pg);
    if (this.settings.length > 0) await restoreSettings(this.pg, this.settings);
  }

  /** Runs one message on PGlite (the session must be held), handing its output to `write`. */
  private run(bytes: Uint8Array, write: (data: Buffer) => void): Promise<void> {
    this.tail.reset();
    return this.pg._runExclusiveQuery(() =>
      this.pg.execProtocolRawStream(bytes, {
        onRawData: (data) => {
          this.tail.push(data);
          if (
            !this.settingsTouched &&
            reportsASetting(Buffer.from(data.buffer, data.byteOffset, data.byteLength))
          ) {
            this.settingsTouched = true;
          }
          if (!this.closed) write(Buffer.from(data));
        },
      }),
    );
  }

  /** Lets the session go, this connection's settings saved and taken off it first. */
  private async letGo(): Promise<void> {
    this.clearIdleTimer();
    const release = this.releaseSession;
    if (!release) return;
    try {
      if (this.settingsTouched || this.settings.length > 0) this.settings = await saveAndReset(this.pg);
    } finally {
      this.settingsTouched = false;
      this.releaseSession = undefined;
      release();
    }
  }

  private startIdleTimer(): void {
    this.clearIdleTimer();
    this.idleTimer = setTimeout(
      () => this.fail("25P03", "terminating connection: it held the embedded database idle for too long"),
      this.idleTimeoutMs,
    );
    this.idleTimer.unref();
  }

  private clearIdleTimer(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  /**
   * Ends the connection with a FATAL error. What it held is rolled back and let go at once (not
   * when the client gets round to closing its end), and the socket is destroyed after a grace.
   */
  fail(code: string, message: string): void {
    if (this.closed) return;
    this.closed = true;
    this.clearIdleTimer();
    this.socket.end(errorResponse("FATAL", code, message));
    setTimeout(() => this.socket.destroy(), FAILED_SOCKET_GRACE_MS).unref();
    void (this.draining ?? Promise.resolve()).then(() => this.restoreSession());
  }

  private async cleanUp(): Promise<void> {
    this.closed = true;
    this.clearIdleTimer();
    await this.draining;
    await this.restoreSession();
  }

  private restored: Promise<void> | undefined;

  /**
   * Once the client is done: whatever it left open is rolled back (an unsynced cycle's work
   * included: the ROLLBACK comes before the Sync that would commit it), the session is back on the
   * owner's settings, and it is let go. Once per connection.
   */
  private restoreSession(): Promise<void> {
    this.restored ??= this.rollBackAndReset();
    return this.restored;
  }

  private async rollBackAndReset(): Promise<void> {
    this.clearIdleTimer();
    if (!this.started) return;
    this.releaseSession ??= await takeSession(this.pg);
    const discard = () => undefined;
    try {
      if (this.cycleOpen) {
        await this.run(queryMessage("ROLLBACK"), discard);
        await this.run(SYNC_MESSAGE, discard);
      }
      if (this.status !== "I" || this.cycleOpen) await this.run(queryMessage("ROLLBACK"), discard);
      await resetSettings(this.pg);
      // Prepared statements, cursors, LISTEN, temporary tables and session advisory locks belong to
      // the one session, not to a connection: gone once no connection is left.
      if (!this.othersConnected()) await this.run(queryMessage("DISCARD ALL"), discard);
    } catch {
      // PGlite itself failed; its owner finds out on its next statement.
    } finally {
      this.settings = [];
      this.settingsTouched = false;
      const release = this.releaseSession;
      this.releaseSession = undefined;
      release?.();
    }
  }
}

function listen(server: Server, target: { path: string }): Promise<void> {
  return new Promise((done, failed) => {
    server.once("error", failed);
    server.listen(target, () => {
      server.off("error", failed);
      done();
    });
  });
}

/**
 * The directory the socket goes in: `socketDir` (made 0700) when the socket's path fits the
 * platforms' limit, else a fresh 0700 directory under the system's temporary folder (removed on
 * close). Never a TCP port: PGlite asks no password, so only the file mode keeps other users out.
 */
async function privateSocketDir(socketDir: string): Promise<{ dir: string; temporary: boolean }> {
  if (Buffer.byteLength(join(socketDir, SOCKET_FILE)) <= MAX_SOCKET_PATH) {
    await mkdir(socketDir, { recursive: true, mode: 0o700 });
    await chmod(socketDir, 0o700);
    return { dir: socketDir, temporary: false };
  }
  return { dir: await mkdtemp(join(tmpdir(), "pglite-")), temporary: true };
}

/**
 * Serves a PGlite instance over the PostgreSQL wire protocol to other processes of this machine
 * run by the same user, on a Unix socket in a 0700 directory. The statements of every connection
 * and of the owning process run one at a time, a transaction or extended-protocol cycle whole.
 */
export async function serveOverWire(
  pg: PGlite,
  options: { socketDir: string; idleTimeoutMs?: number },
): Promise<WireServer> {
  const connections = new Set<WireConnection>();
  const server = createServer((socket) => {
    const connection = new WireConnection(pg, socket, options.idleTimeoutMs ?? SESSION_IDLE_TIMEOUT_MS, () =>
      [...connections].some((other) => other !== connection),
    );
    connections.add(connection);
    void connection.finished.then(() => connections.delete(connection));
  });
  const { dir, temporary } = await privateSocketDir(resolve(options.socketDir));
  const socketPath = join(dir, SOCKET_FILE);
  // Left by an owner that died: ours to replace, since we hold the folder's lock.
  await unlink(socketPath).catch(() => undefined);
  await listen(server, { path: socketPath });
  return {
    url: socketUrl(dir),
    async close() {
      const closing = new Promise<void>((done) => server.close(() => done()));
      for (const connection of connections)
        connection.fail("57P01", "the embedded database is shutting down");
      await Promise.all([...connections].map((connection) => connection.finished));
      await closing;
      if (temporary) await rm(dir, { recursive: true, force: true });
    },
  };
}
