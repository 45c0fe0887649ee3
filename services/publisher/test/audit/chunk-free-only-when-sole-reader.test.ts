/**
 * Audit 5: `freeWritten`'s guard ("only while this writer is the body's one `data` listener
 * (nobody else was handed the chunk)") counts `data` listeners when a batch lands, not who was
 * handed each chunk: a reader that was handed chunks and left before the write landed (a
 * `once('data')`, an unpiped tee), or one that reads with `read()` (an async iterator), has them
 * detached under it. And a chunk whose buffer cannot be detached makes `transfer(0)` throw inside
 * the `writev` callback, where nothing catches it (the write never settles; with no handler the
 * process dies). None of this is reachable through today's routes (`ownsChunks` only for Node's
 * own request, which nothing else reads); it is the store's contract that does not hold.
 */

import { PassThrough, Readable } from "node:stream";
import { markAsUntransferable } from "node:worker_threads";
import { describe, expect, test } from "vitest";
import { testStorage } from "../support.ts";

const KiB = 1024;

/** `count` chunks of 300 KiB, each on an ArrayBuffer of its own, filled with its index. */
const ownChunks = (count: number) =>
  Array.from({ length: count }, (_, n) => Buffer.allocUnsafeSlow(300 * KiB).fill(n + 1));

describe("audit5: the guard on freeing written chunks", () => {
  test("a chunk handed to a once('data') reader that has since left is not detached under it", async () => {
    const storage = testStorage();
    const chunks = ownChunks(8);
    const body = Readable.from(chunks);
    let kept: Buffer | undefined;
    // The other reader starts with the store (so both are handed the first chunk) and takes one.
    body.on("newListener", function alongside(event) {
      if (event === "data") {
        body.off("newListener", alongside);
        body.once("data", (chunk: Buffer) => {
          kept = chunk;
        });
      }
    });
    await storage.write("med_once.mp4", body, { contentType: "video/mp4", ownsChunks: true });
    expect(kept).toBe(chunks[0]);
    // It must still hold its 300 KiB of 1s.
    expect(((kept as Buffer).buffer as ArrayBuffer).detached).toBe(false);
    expect(kept?.length).toBe(300 * KiB);
  });

  test("chunks queued in a piped tee that was unpiped before the write landed are not detached", async () => {
    const storage = testStorage();
    const chunks = ownChunks(8);
    const body = Readable.from(chunks);
    // A side reader (a checksum, a preview) piped alongside the store that takes the first two
    // chunks, then lets go (and lets the body flow on).
    const tee = new PassThrough({ highWaterMark: 16 * 1024 * 1024 });
    body.on("newListener", function alongside(event) {
      if (event !== "data") return;
      body.off("newListener", alongside);
      body.pipe(tee);
      let seen = 0;
      body.on("data", function count() {
        seen += 1;
        if (seen === 2) {
          body.off("data", count);
          body.unpipe(tee);
          body.resume();
        }
      });
    });
    await storage.write("med_tee.mp4", body, { contentType: "video/mp4", ownsChunks: true });
    tee.end();
    const teed: Buffer[] = [];
    for await (const chunk of tee) teed.push(chunk as Buffer);
    // The tee was handed the first two chunks: it must still hold their bytes (its reads may
    // join them into one buffer).
    expect(
      Buffer.concat(teed).equals(Buffer.concat([Buffer.alloc(300 * KiB, 1), Buffer.alloc(300 * KiB, 2)])),
    ).toBe(true);
  });

  test("chunks also read by a 'readable' reader (an async iterator) alongside the store are not detached", async () => {
    const storage = testStorage();
    const chunks = ownChunks(8);
    const body = Readable.from(chunks);
    const iterated: Buffer[] = [];
    let reading: Promise<void> = Promise.resolve();
    body.on("newListener", function alongside(event) {
      if (event !== "data") return;
      body.off("newListener", alongside);
      // Another reader of the same body: `read()` hands it each chunk that 'data' hands the store.
      reading = (async () => {
        for await (const chunk of body) iterated.push(chunk as Buffer);
      })();
    });
    await storage.write("med_iterated.mp4", body, { contentType: "video/mp4", ownsChunks: true });
    await reading;
    expect(iterated.length).toBeGreaterThan(0);
    expect(iterated.map((chunk) => chunk.length)).toEqual(iterated.map(() => 300 * KiB));
  });

  test("a chunk whose ArrayBuffer cannot be detached fails or stores the write, and throws nothing uncaught", async () => {
    const storage = testStorage();
    const chunks = ownChunks(4);
    markAsUntransferable(chunks[0]?.buffer as ArrayBuffer);
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    // Seen before vitest's own handler reports it.
    process.prependListener("uncaughtException", onUncaught);
    try {
      const outcome = await Promise.race([
        storage
          .write("med_untransferable.mp4", Readable.from(chunks), {
            contentType: "video/mp4",
            ownsChunks: true,
          })
          .then(
            () => "stored",
            () => "failed",
          ),
        new Promise((resolve) => setTimeout(() => resolve("never settled"), 3000)),
      ]);
      expect(uncaught.map((error) => String(error))).toEqual([]);
      expect(["stored", "failed"]).toContain(outcome);
    } finally {
      process.off("uncaughtException", onUncaught);
    }
  });
});
