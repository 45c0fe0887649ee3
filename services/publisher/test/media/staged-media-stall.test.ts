import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import type { MediaReader } from "../../src/contracts/publishing.ts";
import type { MediaStorage } from "../../src/contracts/storage.ts";
import { MediaStalled } from "../../src/media/guarded-fetch.ts";
import { stageMedia } from "../../src/media/staged-media.ts";

/** A store that, like the S3 client, reports a failed body as its own error. */
const wrappingStore = {
  pathOf: () => undefined,
  exists: async () => false,
  async write(_path: string, body: Readable) {
    try {
      for await (const _chunk of body);
    } catch {
      throw Object.assign(new Error("The body ended early."), { name: "IncompleteBodyError" });
    }
  },
} as unknown as MediaStorage;

describe("staging foreign media", () => {
  it("keeps a stalled download a stall when the store wraps the body's failure", async () => {
    const stalled = new MediaStalled("The media host sent 3 bytes in 10000 ms: the transfer stalled.");
    const reader: MediaReader = {
      async open() {
        const stream = new Readable({ read() {} });
        stream.push(Buffer.from([0xff, 0xd8, 0xff]));
        setImmediate(() => stream.destroy(stalled));
        return { stream, size: 100_000, contentType: "image/jpeg" };
      },
    };
    await expect(
      stageMedia({ storage: wrappingStore, reader }, "https://cdn.example/a.jpg", "staged_x_0"),
    ).rejects.toBe(stalled);
  });
});
