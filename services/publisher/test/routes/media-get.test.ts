import { Readable } from "node:stream";
import { test } from "@app/testkit";
import { describe, expect } from "vitest";
import { publisherApp } from "../support.ts";

const BYTES = Buffer.from(Array.from({ length: 1000 }, (_, n) => n % 256));

async function stored(db: Parameters<typeof publisherApp>[0]) {
  const testApp = publisherApp(db);
  await testApp.storage.write("med_range.mp4", Readable.from([BYTES]), {
    contentType: "video/mp4",
    expectedBytes: BYTES.length,
  });
  return testApp;
}

describe("GET /media/{path}: success", () => {
  test("serves the whole object without a key, advertising range support", async ({ db }) => {
    const { app } = await stored(db);
    const res = await app.request("/media/med_range.mp4");
    expect(res.status).toBe(200);
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("content-length")).toBe("1000");
    expect(Buffer.from(await res.arrayBuffer())).toEqual(BYTES);
  });

  test("a byte range is answered 206 with Content-Range and exactly those bytes", async ({ db }) => {
    const { app } = await stored(db);
    const res = await app.request("/media/med_range.mp4", { headers: { range: "bytes=100-199" } });
    expect(res.status).toBe(206);
    expect(res.headers.get("content-range")).toBe("bytes 100-199/1000");
    expect(res.headers.get("content-length")).toBe("100");
    expect(Buffer.from(await res.arrayBuffer())).toEqual(BYTES.subarray(100, 200));
    const tail = await app.request("/media/med_range.mp4", { headers: { range: "bytes=-10" } });
    expect(Buffer.from(await tail.arrayBuffer())).toEqual(BYTES.subarray(990));
  });
});

describe("GET /media/{path}: errors", () => {
  test("a range past the end is 416 with the object's size", async ({ db }) => {
    const { app } = await stored(db);
    const res = await app.request("/media/med_range.mp4", { headers: { range: "bytes=1000-" } });
    expect(res.status).toBe(416);
    expect(res.headers.get("content-range")).toBe("bytes */1000");
  });

  test("an unknown path, or one trying to climb out, is 404", async ({ db }) => {
    const { app } = await stored(db);
    expect((await app.request("/media/med_none.mp4")).status).toBe(404);
    expect((await app.request("/media/..%2Fsecret")).status).toBe(404);
    expect((await app.request("/media/.incoming")).status).toBe(404);
  });

  test("POST on a media path is 405", async ({ db }) => {
    const { app } = await stored(db);
    expect((await app.request("/media/med_range.mp4", { method: "POST" })).status).toBe(405);
  });
});
