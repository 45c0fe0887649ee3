/**
 * Audit: a multipart v1 upload whose `file` part arrives whole (and is stored) but whose body then
 * fails (a Content-Length larger than what is sent, a second part still coming or no closing
 * boundary, and the connection destroyed, reset or half-closed; or a complete body without its
 * closing boundary) left the stored file and its metadata behind while the answer said nothing
 * was stored and no media row was made. What was written is removed when the body fails.
 */
import { readdir } from "node:fs/promises";
import { connect } from "node:net";
import { join } from "node:path";
import { type RunningServer, serveApp } from "@app/core";
import { captureLogs, test } from "@app/testkit";
import { describe, expect } from "vitest";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { publisherApp, seedAccount } from "../support.ts";

const KB = 1024;
const BOUNDARY = "----stored-then-failed";
const filePart = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="clip.mp4"\r\nContent-Type: video/mp4\r\n\r\n`;
const fileBytes = Buffer.alloc(200 * KB, 7);

/** What follows the file's bytes: a second part begun, or the delimiter alone. */
const AFTER_FILE = {
  "a second part still coming": `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nmore`,
  "no closing boundary": `\r\n--${BOUNDARY}\r\n`,
} as const;

const head = (key: string, length: number) =>
  `POST /api/v1/upload HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: ${key}\r\ncontent-type: multipart/form-data; boundary=${BOUNDARY}\r\ncontent-length: ${length}\r\n\r\n`;

type Ending = "destroyed" | "reset" | "half-closed";

/**
 * Sends the request; once `ready` holds (the file is in storage), ends the connection as told
 * (`kept open`: reads the answer, then ends). Resolves with the answer at close.
 */
function send(
  server: RunningServer,
  request: Buffer,
  ending: Ending | "kept open",
  ready: () => Promise<boolean> = async () => true,
): Promise<string> {
  return new Promise((resolve) => {
    const answer: Buffer[] = [];
    const socket = connect(server.port, "127.0.0.1", () => {
      socket.write(request, async () => {
        while (!(await ready())) await pause();
        if (ending === "destroyed") socket.destroy();
        else if (ending === "reset") socket.resetAndDestroy();
        else if (ending === "half-closed") socket.end();
      });
    });
    socket.on("data", (chunk: Buffer) => {
      answer.push(chunk);
      if (ending === "kept open") socket.end();
    });
    socket.on("close", () => resolve(Buffer.concat(answer).toString("latin1")));
    socket.on("error", () => undefined);
  });
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

/** Polls `check` every 20 ms until it holds (the test's own deadline bounds it). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await pause();
}

const leftovers = async (storage: LocalDiskStorage) => ({
  stored: (await readdir(storage.options.dir).catch(() => [] as string[])).filter((n) => n !== ".incoming"),
  incoming: await readdir(join(storage.options.dir, ".incoming")).catch(() => [] as string[]),
});

const mediaRows = async (db: Parameters<typeof seedAccount>[0], accountId: string) =>
  (await db.query("SELECT id FROM publisher.media WHERE account_id = $1", [accountId])).length;

describe("audit: a multipart upload that fails after its file was stored leaves nothing", () => {
  for (const [after, trailer] of Object.entries(AFTER_FILE)) {
    for (const ending of ["destroyed", "reset", "half-closed"] as const) {
      test(`file part whole, ${after}, Content-Length 100 KB over, connection ${ending}`, async ({ db }) => {
        const { accountId, key } = await seedAccount(db);
        const logs = captureLogs("debug");
        const { app, storage } = publisherApp(db, { logger: logs.logger });
        const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
        try {
          const body = Buffer.concat([Buffer.from(filePart), fileBytes, Buffer.from(trailer)]);
          const request = Buffer.concat([Buffer.from(head(key, body.length + 100 * KB)), body]);
          // The connection ends only once the file part is stored (its object in place).
          await send(server, request, ending, async () =>
            (await leftovers(storage)).stored.some((name) => name.endsWith(".mp4")),
          );
          // The route is done with the upload once it logged the client's early end.
          await until(() =>
            logs.lines.some((line) =>
              line.includes("upload ended by the client before its body was complete"),
            ),
          );
          expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
          expect(await mediaRows(db, accountId)).toBe(0);
        } finally {
          await server.close();
        }
      });
    }
  }

  test("a complete body without its closing boundary: 400 INCOMPLETE_UPLOAD, and the file is not kept", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const { app, storage } = publisherApp(db);
    const server = await serveApp(app as never, { host: "127.0.0.1", port: 0 });
    try {
      const body = Buffer.concat([
        Buffer.from(filePart),
        fileBytes,
        Buffer.from(AFTER_FILE["no closing boundary"]),
      ]);
      const answer = await send(
        server,
        Buffer.concat([Buffer.from(head(key, body.length)), body]),
        "kept open",
      );
      expect(answer).toMatch(/^HTTP\/1\.1 400 /);
      expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toMatchObject({
        error: "INCOMPLETE_UPLOAD",
      });
      expect(await leftovers(storage)).toEqual({ stored: [], incoming: [] });
      expect(await mediaRows(db, accountId)).toBe(0);
    } finally {
      await server.close();
    }
  });
});
