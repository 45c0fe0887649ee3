import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, openEmbedded } from "../src/index.ts";

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let dir: string;
let owner: Database;
let client: Database;
const IDLE_TIMEOUT_MS = 400;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "wire-"));
  owner = await openEmbedded(join(dir, "pglite"), {
    role: "owner",
    holder: "test",
    idleTimeoutMs: IDLE_TIMEOUT_MS,
  });
  client = await openEmbedded(join(dir, "pglite"), { role: "client", holder: "test client" });
  await owner.exec("CREATE TABLE public.marks (label text NOT NULL)");
  return async () => {
    await client.close();
    await owner.close();
    await rm(dir, { recursive: true, force: true });
  };
});
afterAll(() => undefined);

const count = async (db: Database, label: string) =>
  (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM public.marks WHERE label = $1", [label]))[0]
    ?.n;

/** The path of the owner's socket, from its URL. */
function socketPath(): string {
  const host = new URL(owner.endpoint as string).searchParams.get("host") as string;
  return join(host, ".s.PGSQL.5432");
}

function message(type: string, body: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, "latin1");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

const cstring = (text: string) => Buffer.from(`${text}\0`);
const int16 = (n: number) => Buffer.from([n >> 8, n & 0xff]);
const int32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
};

function startup(): Buffer {
  const body = Buffer.concat([int32(0x30000), cstring("user"), cstring("postgres"), Buffer.from([0])]);
  return Buffer.concat([int32(body.length + 4), body]);
}

/** A raw protocol connection: sends what it is given, collects what comes back. */
async function rawConnection() {
  const socket = connect(socketPath());
  let received = Buffer.alloc(0);
  socket.on("data", (chunk) => {
    received = Buffer.concat([received, chunk]);
  });
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  const untilReceived = async (text: string) => {
    for (let i = 0; i < 100 && !received.includes(text); i++) await sleep(20);
    expect(received.toString("latin1")).toContain(text);
  };
  socket.write(startup());
  await untilReceived("Z\0\0\0\x05I");
  return { socket, closed, untilReceived, received: () => received };
}

describe("the embedded database served to other processes", () => {
  it("never runs a connection's statement inside the owner's open transaction", async () => {
    const inProcess = owner
      .transaction(async (tx) => {
        await tx.query("INSERT INTO public.marks VALUES ('owner-tx')");
        await sleep(100);
        throw new Error("rolled back");
      })
      .catch(() => undefined);
    await sleep(20);
    // Without the session lock this ran inside the owner's transaction: it saw the row, and was rolled back with it.
    expect(await count(client, "owner-tx")).toBe(0);
    await client.query("INSERT INTO public.marks VALUES ('client-alone')");
    await inProcess;
    expect(await count(owner, "owner-tx")).toBe(0);
    expect(await count(owner, "client-alone")).toBe(1);
  });

  it("never runs the owner's statement inside a connection's open transaction", async () => {
    const remote = client.transaction(async (tx) => {
      await tx.query("INSERT INTO public.marks VALUES ('client-tx')");
      await sleep(100);
      throw new Error("rolled back");
    });
    await sleep(20);
    expect(await count(owner, "client-tx")).toBe(0);
    await owner.query("INSERT INTO public.marks VALUES ('owner-alone')");
    await expect(remote).rejects.toThrow("rolled back");
    expect(await count(owner, "client-tx")).toBe(0);
    expect(await count(owner, "owner-alone")).toBe(1);
  });

  it("keeps concurrent connections' extended-protocol cycles apart", async () => {
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        (i % 3 === 0 ? owner : client).query<{ n: number; s: string }>("SELECT $1::int AS n, $2::text AS s", [
          i,
          `v${i}`,
        ]),
      ),
    );
    expect(results).toEqual(results.map((_, i) => [{ n: i, s: `v${i}` }]));
  });

  it("answers an error inside a cycle sent in one piece, and carries on", async () => {
    await expect(client.query("SELEC 1")).rejects.toThrow(/syntax error/);
    await expect(client.query("SELECT $1::int AS n", ["not a number"])).rejects.toThrow(
      /invalid input syntax/,
    );
    await expect(
      client.transaction(async (tx) => {
        await tx.query("INSERT INTO public.marks VALUES ('before-error')");
        await tx.query("SELECT 1/0");
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await count(client, "before-error")).toBe(0);
    expect(await client.query("SELECT 2 AS n")).toEqual([{ n: 2 }]);
  });

  it("keeps every increment of transactions from both sides", async () => {
    await owner.exec("CREATE TABLE public.counter (n int NOT NULL); INSERT INTO public.counter VALUES (0)");
    const bump = (db: Database) =>
      db.transaction(async (tx) => {
        const [row] = await tx.query<{ n: number }>("SELECT n FROM public.counter FOR UPDATE");
        await sleep(1);
        await tx.query("UPDATE public.counter SET n = $1", [(row?.n ?? 0) + 1]);
      });
    await Promise.all(Array.from({ length: 40 }, (_, i) => bump(i % 2 ? owner : client)));
    expect(await owner.query("SELECT n FROM public.counter")).toEqual([{ n: 40 }]);
  });

  it("rolls back the open transaction of a connection that vanished, and serves the owner on", async () => {
    const raw = await rawConnection();
    raw.socket.write(message("Q", cstring("BEGIN; INSERT INTO public.marks VALUES ('vanished-tx')")));
    await raw.untilReceived("Z\0\0\0\x05T");
    raw.socket.destroy();
    await raw.closed;
    expect(await count(owner, "vanished-tx")).toBe(0);
  });

  it("does not commit an unsynced extended-protocol cycle of a connection that vanished", async () => {
    const raw = await rawConnection();
    raw.socket.write(
      Buffer.concat([
        message(
          "P",
          Buffer.concat([cstring(""), cstring("INSERT INTO public.marks VALUES ('unsynced')"), int16(0)]),
        ),
        message("B", Buffer.concat([cstring(""), cstring(""), int16(0), int16(0), int16(0)])),
        message("E", Buffer.concat([cstring(""), int32(0)])),
        message("H", Buffer.alloc(0)),
      ]),
    );
    await raw.untilReceived("C\0\0\0\x0fINSERT 0 1\0");
    raw.socket.destroy();
    await raw.closed;
    expect(await count(owner, "unsynced")).toBe(0);
    expect(await count(client, "unsynced")).toBe(0);
  });

  it("ends a connection that holds the database idle in a transaction, and rolls it back", async () => {
    const raw = await rawConnection();
    raw.socket.write(message("Q", cstring("BEGIN; INSERT INTO public.marks VALUES ('idle-tx')")));
    await raw.untilReceived("Z\0\0\0\x05T");
    const started = Date.now();
    // The owner waits for the session meanwhile; the timeout frees it.
    expect(await count(owner, "idle-tx")).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_TIMEOUT_MS - 100);
    await raw.closed;
    expect(raw.received().toString("latin1")).toContain("25P03");
  });

  it("resets a connection's session settings when it closes", async () => {
    const one = new pg.Client({ connectionString: owner.endpoint });
    await one.connect();
    await one.query("SET statement_timeout = 12345");
    await one.end();
    expect(await owner.query("SHOW statement_timeout")).toEqual([{ statement_timeout: "0" }]);
  });

  it("keeps a connection's settings its own: the owner's results and other connections are untouched", async () => {
    const sql =
      "SELECT timestamptz '2026-03-04 05:06:07+00' AS at, '\\x0102'::bytea AS bytes, current_user AS who";
    const before = await owner.query(sql);
    const one = new pg.Client({ connectionString: owner.endpoint });
    await one.connect();
    try {
      await one.query(
        "SET DateStyle = 'SQL, DMY'; SET bytea_output = 'escape'; SET statement_timeout = 4321",
      );
      await one.query("CREATE ROLE wire_test_nobody; SET ROLE wire_test_nobody");
      expect(await owner.query(sql)).toEqual(before);
      // Spellings the text check cannot see: caught by what PostgreSQL reports back.
      await one.query(`PREPARE change_style AS SELECT "set_config"('DateStyle', 'German', false)`);
      await one.query("EXECUTE change_style");
      expect(await owner.query(sql)).toEqual(before);
      expect(await client.query("SHOW statement_timeout")).toEqual([{ statement_timeout: "0" }]);
      // The connection itself keeps what it set, from one statement to the next.
      const kept = await one.query("SHOW DateStyle");
      expect(kept.rows).toEqual([{ DateStyle: "German, DMY" }]);
      expect((await one.query("SELECT current_user AS who")).rows).toEqual([{ who: "wire_test_nobody" }]);
      expect((await one.query("SHOW statement_timeout")).rows).toEqual([{ statement_timeout: "4321ms" }]);
      await one.query("RESET ROLE; CREATE ROLE wire_test_low; SET SESSION AUTHORIZATION wire_test_low");
      expect(await owner.query(sql)).toEqual(before);
    } finally {
      await one.end();
    }
    expect(await owner.query(sql)).toEqual(before);
  });

  it("ends a connection that trickles a message it never finishes while it holds a transaction", async () => {
    const raw = await rawConnection();
    raw.socket.write(message("Q", cstring("BEGIN")));
    await raw.untilReceived("Z\0\0\0\x05T");
    const unfinished = message("Q", cstring("SELECT 'never finished'"));
    let sent = 0;
    const drip = setInterval(() => {
      if (sent < unfinished.length - 1) raw.socket.write(unfinished.subarray(sent, ++sent));
    }, IDLE_TIMEOUT_MS / 4);
    try {
      // Answered once the timeout ends the connection, though bytes kept coming.
      expect(await count(owner, "never")).toBe(0);
      await raw.closed;
      expect(raw.received().toString("latin1")).toContain("25P03");
    } finally {
      clearInterval(drip);
    }
  });

  it("ends a connection that stops reading a large answer while it holds a transaction", async () => {
    const raw = await rawConnection();
    raw.socket.pause();
    raw.socket.write(message("Q", cstring("BEGIN")));
    for (let i = 0; i < 4; i++) {
      raw.socket.write(message("Q", cstring("SELECT repeat('x', 1000000) FROM generate_series(1, 10)")));
    }
    await sleep(100);
    expect(await count(owner, "unread")).toBe(0);
    raw.socket.destroy();
  });

  it("ends a connection sending a message type PGlite has no answer to, and serves on", async () => {
    for (const type of ["z", "p", "c", "d"]) {
      const raw = await rawConnection();
      raw.socket.write(message(type, Buffer.alloc(0)));
      await raw.closed;
      expect(raw.received().toString("latin1"), type).toContain("08P01");
      expect(await owner.query("SELECT 1 AS n")).toEqual([{ n: 1 }]);
    }
  });

  it("refuses COPY FROM STDIN and another client encoding than UTF8, and serves on", async () => {
    for (const sql of [
      "COPY public.marks FROM STDIN",
      "COPY public.marks FROM/**/STDIN",
      "SET client_encoding = 'LATIN1'",
      "SET NAMES 'latin1'",
      `SET "client_encoding" TO 'LATIN1' -- not utf8`,
      `SELECT "set_config"('client_encoding', 'LATIN1', false)`,
    ]) {
      const raw = await rawConnection();
      raw.socket.write(message("Q", cstring(sql)));
      await raw.closed;
      expect(raw.received().toString("latin1"), sql).toContain("0A000");
      expect(await owner.query("SELECT 'Zoë' AS name")).toEqual([{ name: "Zoë" }]);
    }
  });

  it("answers a protocol 3.2 startup with the version it speaks, and an oversized startup with an error", async () => {
    const socket = connect(socketPath());
    let received = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      received = Buffer.concat([received, chunk]);
    });
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
    const body = Buffer.concat([int32(0x30002), cstring("user"), cstring("postgres"), Buffer.from([0])]);
    socket.write(Buffer.concat([int32(body.length + 4), body]));
    for (let i = 0; i < 100 && !received.includes("Z\0\0\0\x05I"); i++) await sleep(20);
    expect(received.subarray(0, 13)).toEqual(Buffer.from([0x76, 0, 0, 0, 12, 0, 0, 0, 0, 0, 0, 0, 0]));
    expect(received.toString("latin1")).toContain("Z\0\0\0\x05I");
    socket.destroy();

    const huge = connect(socketPath());
    const closed = new Promise<string>((resolve) => {
      let text = "";
      huge.on("data", (chunk) => {
        text += chunk.toString("latin1");
      });
      huge.once("close", () => resolve(text));
    });
    huge.write(Buffer.concat([int32(1 << 20), int32(0x30000)]));
    expect(await closed).toContain("08P01");
  });

  it("takes a large statement whole, and keeps the connection's transaction alive across the idle limit only while it sends", async () => {
    const big = "x".repeat(20 * 1024 * 1024);
    await client.query("INSERT INTO public.marks VALUES ($1)", [big]);
    expect(
      await owner.query("SELECT count(*)::int AS n FROM public.marks WHERE length(label) = $1", [big.length]),
    ).toEqual([{ n: 1 }]);
    await owner.query("DELETE FROM public.marks WHERE length(label) = $1", [big.length]);
  });

  it("fails a transaction whose connection the owner ended, without an unhandled error in the client process", async () => {
    await expect(
      client.transaction(async (tx) => {
        await tx.query("INSERT INTO public.marks VALUES ('ended-tx')");
        await sleep(IDLE_TIMEOUT_MS * 2);
        await tx.query("SELECT 1");
      }),
    ).rejects.toThrow();
    expect(await count(owner, "ended-tx")).toBe(0);
    expect(await client.query("SELECT 3 AS n")).toEqual([{ n: 3 }]);
  });

  it("answers psql (libpq, which asks for TLS first) on its URL", async () => {
    await owner.query("INSERT INTO public.marks VALUES ('for-psql')");
    const { stdout } = await run("psql", [
      owner.endpoint as string,
      "-At",
      "-c",
      "SELECT label FROM public.marks WHERE label = 'for-psql'",
    ]);
    expect(stdout.trim()).toBe("for-psql");
  });
});
