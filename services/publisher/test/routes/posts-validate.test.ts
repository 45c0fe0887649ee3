import { readdir } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Database } from "@app/db";
import { json, test } from "@app/testkit";
import { describe, expect } from "vitest";
import { createRemoteImporter } from "../../src/media/remote-import.ts";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { jpegImage, pngImage } from "../media/images.ts";
import { buildMp4 } from "../media/mp4-fixture.ts";
import { call, publisherApp, seedAccount, seedConnection, testStorage } from "../support.ts";

/** Stores `bytes` as an upload would (`med_<name>`), and gives its public URL. */
async function upload(storage: LocalDiskStorage, name: string, bytes: Buffer, contentType: string) {
  const path = `med_${name}`;
  await storage.write(path, Readable.from([bytes]), { contentType, expectedBytes: bytes.length });
  return storage.publicUrl(path);
}

/** The files in a local store (their sidecars left out). */
async function storedFiles(storage: LocalDiskStorage): Promise<string[]> {
  return (await readdir(storage.options.dir)).filter(
    (name) => !name.endsWith(".meta.json") && !name.startsWith("."),
  );
}

/** What the account has in the tables a create writes to: a dry run writes none of them. */
async function rowsOf(db: Database, accountId: string) {
  const [row] = await db.query<{ posts: number; targets: number; media: number; events: number }>(
    `SELECT (SELECT count(*)::int FROM publisher.posts WHERE account_id = $1) AS posts,
       (SELECT count(*)::int FROM publisher.post_targets t JOIN publisher.posts p ON p.id = t.post_id
         WHERE p.account_id = $1) AS targets,
       (SELECT count(*)::int FROM publisher.media WHERE account_id = $1) AS media,
       (SELECT count(*)::int FROM publisher.events WHERE account_id = $1) AS events`,
    [accountId],
  );
  return row;
}

const NOTHING = { posts: 0, targets: 0, media: 0, events: 0 };

const validate = (app: Parameters<typeof call>[0], key: string | undefined, body: unknown) =>
  call(app, "POST", "/api/v1/posts/validate", key, body);

describe("POST /api/v1/posts/validate: success", () => {
  test("a photo post to Bluesky and TikTok: valid, each image as it would be made to fit, TikTok's title, and nothing made", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const { app, storage } = publisherApp(db);
    const photo = await upload(storage, "wide.png", await pngImage(3000, 1500), "image/png");
    const before = await storedFiles(storage);
    const res = await validate(app, key, {
      caption: "A wide picture\nwith a second line",
      mediaItems: [{ url: photo, mediaType: "IMAGE" }],
      connectionIds: [bluesky, tiktok],
      scheduledFor: "2026-07-01T09:00:00Z",
    });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      valid: true,
      errors: [],
      targets: [
        {
          connectionId: bluesky,
          platform: "bluesky",
          accepted: true,
          errors: [],
          transforms: [
            {
              kind: "image_fitted",
              field: "mediaItems.0",
              url: photo,
              from: { format: "png", width: 3000, height: 1500, bytes: expect.any(Number) },
              to: { contentType: "image/jpeg", width: 2000, height: 1000, bytes: expect.any(Number) },
            },
          ],
        },
        {
          connectionId: tiktok,
          platform: "tiktok",
          accepted: true,
          errors: [],
          transforms: [
            {
              kind: "image_fitted",
              field: "mediaItems.0",
              url: photo,
              from: { format: "png", width: 3000, height: 1500, bytes: expect.any(Number) },
              to: { contentType: "image/jpeg", width: 1920, height: 960, bytes: expect.any(Number) },
            },
            {
              kind: "title_derived",
              field: "title",
              value: "A wide picture",
              maxLength: 90,
              unit: "utf16_units",
              cut: false,
            },
          ],
        },
      ],
    });
    expect(await rowsOf(db, accountId)).toEqual(NOTHING);
    expect(await storedFiles(storage)).toEqual(before);
  });

  test("YouTube: a title taken from a long first line is cut to 100 characters, and < > leave the description", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, storage } = publisherApp(db);
    const clip = await upload(storage, "clip.mp4", buildMp4({ durationSec: 5 }), "video/mp4");
    const firstLine = `${"ab ".repeat(40)}end`;
    const res = await validate(app, key, {
      videoUrl: clip,
      caption: `${firstLine}\n<b>bold</b>`,
      connectionIds: [youtube],
    });
    const body = await json(res);
    expect(body).toMatchObject({ valid: true, targets: [{ accepted: true }] });
    expect(body.targets[0].transforms).toEqual([
      {
        kind: "title_derived",
        field: "title",
        value: firstLine.slice(0, 100).trim(),
        maxLength: 100,
        unit: "characters",
        cut: true,
      },
      { kind: "characters_removed", field: "description", characters: ["<", ">"] },
    ]);
    expect(await rowsOf(db, accountId)).toEqual(NOTHING);
  });

  test("media at another host is imported to be checked, then deleted: no media row, no file left", async ({
    db,
  }) => {
    const photo = await jpegImage(400, 300);
    const server: Server = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "image/jpeg", "content-length": photo.length }).end(photo);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const { accountId, key } = await seedAccount(db);
      const bluesky = await seedConnection(db, accountId, "bluesky");
      const storage = testStorage();
      const importRemoteMedia = createRemoteImporter(storage, { trustedOrigins: [origin] });
      const { app } = publisherApp(db, { storage, importRemoteMedia });
      const res = await validate(app, key, { mediaUrls: [`${origin}/photo.jpg`], connectionIds: [bluesky] });
      expect(await json(res)).toMatchObject({
        valid: true,
        targets: [
          {
            accepted: true,
            transforms: [
              {
                kind: "image_fitted",
                field: "mediaUrls.0",
                url: `${origin}/photo.jpg`,
                to: { contentType: "image/jpeg", width: 400, height: 300 },
              },
            ],
          },
        ],
      });
      expect(await storedFiles(storage)).toEqual([]);
      expect(await rowsOf(db, accountId)).toEqual(NOTHING);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("POST /api/v1/posts/validate: errors", () => {
  test("each target's refusal is the one a create answers: text limits, connections, media per platform", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const youtube = await seedConnection(db, accountId, "youtube");
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const reconnect = await seedConnection(db, accountId, "bluesky", "needs_reconnect");
    const { app, storage } = publisherApp(db);
    const long = await upload(storage, "long.mp4", buildMp4({ durationSec: 200 }), "video/mp4");
    const body = {
      videoUrl: long,
      caption: "A long video",
      connectionIds: [youtube, bluesky, reconnect, "conn_nope"],
    };
    const answer = await json(await validate(app, key, body));
    expect(answer).toMatchObject({
      valid: false,
      errors: [],
      targets: [
        { connectionId: youtube, platform: "youtube", accepted: true, errors: [] },
        { connectionId: bluesky, platform: "bluesky", accepted: false, transforms: [] },
        { connectionId: reconnect, platform: "bluesky", accepted: false },
        { connectionId: "conn_nope", platform: null, accepted: false },
      ],
    });
    // The same refusals a create of each target alone answers, field for field.
    for (const [index, connectionId] of [bluesky, reconnect, "conn_nope"].entries()) {
      const created = await call(app, "POST", "/api/v1/schedule", key, {
        ...body,
        connectionIds: [connectionId],
        scheduledFor: "2026-07-01T09:00:00Z",
      });
      expect(created.status).toBe(400);
      expect(answer.targets[index + 1].errors).toEqual([await json(created)]);
    }
    expect(answer.targets[1].errors[0]).toMatchObject({
      error: "CONTENT_NOT_ACCEPTED",
      limit: { maxDurationSec: 180 },
    });
    expect(answer.targets[2].errors[0]).toMatchObject({
      error: "INVALID_CONNECTION",
      reason: "needs_reconnect",
    });
    expect(answer.targets[3].errors[0]).toMatchObject({ error: "INVALID_CONNECTION", reason: "unknown" });
    expect(await rowsOf(db, accountId)).toEqual(NOTHING);
  });

  test("a caption over Bluesky's limit, and a TikTok privacy the creator does not offer, refuse those targets only", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const youtube = await seedConnection(db, accountId, "youtube");
    const { app, storage } = publisherApp(db, {
      tiktokCreator: async () => ({ privacyLevelOptions: ["SELF_ONLY"] }),
    });
    const clip = await upload(storage, "clip.mp4", buildMp4({ durationSec: 5 }), "video/mp4");
    const answer = await json(
      await validate(app, key, {
        videoUrl: clip,
        caption: "x".repeat(301),
        connectionIds: [bluesky, tiktok, youtube],
      }),
    );
    expect(answer.targets.map((target: { accepted: boolean }) => target.accepted)).toEqual([
      false,
      false,
      true,
    ]);
    expect(answer.targets[0].errors).toEqual([
      expect.objectContaining({
        error: "CONTENT_NOT_ACCEPTED",
        message: expect.stringContaining("300 characters"),
      }),
    ]);
    expect(answer.targets[1].errors).toEqual([
      expect.objectContaining({ error: "CONTENT_NOT_ACCEPTED", allowedPrivacy: ["SELF_ONLY"] }),
    ]);
  });

  test("what refuses the whole post is in errors, as a create answers it; the targets' checks that it stopped are not accepted", async ({
    db,
  }) => {
    const { accountId, key } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const { app, storage } = publisherApp(db);
    const missing = storage.publicUrl("med_never.jpg");
    const body = {
      caption: "Hi",
      mediaUrls: [missing],
      connectionIds: [bluesky],
      scheduledFor: "2026-06-01T00:00:00Z",
    };
    const answer = await json(await validate(app, key, body));
    expect(answer).toMatchObject({
      valid: false,
      errors: [
        { error: "VALIDATION_FAILED", issues: [{ path: "scheduledFor", message: "must be in the future" }] },
        { error: "MEDIA_NOT_FOUND", url: missing },
      ],
      targets: [{ connectionId: bluesky, accepted: false, errors: [] }],
    });
    const created = await call(app, "POST", "/api/v1/publish", key, { ...body, scheduledFor: undefined });
    expect(answer.errors[1]).toEqual(await json(created));
    const empty = await json(await validate(app, key, { connectionIds: [bluesky], groupIds: ["grp_nope"] }));
    expect(empty.errors).toEqual([
      expect.objectContaining({
        error: "VALIDATION_FAILED",
        issues: [expect.objectContaining({ path: "caption" })],
      }),
      expect.objectContaining({
        error: "VALIDATION_FAILED",
        issues: [expect.objectContaining({ path: "groupIds.0" })],
      }),
    ]);
    expect(empty.targets).toEqual([
      { connectionId: bluesky, platform: "bluesky", accepted: false, errors: [], transforms: [] },
    ]);
    expect(await rowsOf(db, accountId)).toEqual(NOTHING);
  });

  test("a body that is not a post payload's shape is 400 VALIDATION_FAILED", async ({ db }) => {
    const { key } = await seedAccount(db);
    const { app } = publisherApp(db);
    const res = await validate(app, key, { connectionIds: "conn_1" });
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      error: "VALIDATION_FAILED",
      issues: [{ path: "connectionIds" }],
    });
  });
});

describe("POST /api/v1/posts/validate: security", () => {
  test("401 without a key, 403 without posts:write; another account's connection is unknown", async ({
    db,
  }) => {
    const { app } = publisherApp(db);
    expect((await validate(app, undefined, { text: "x" })).status).toBe(401);
    const reader = await seedAccount(db, { scopes: ["posts:read", "media:write"] });
    const forbidden = await validate(app, reader.key, { text: "x" });
    expect(forbidden.status).toBe(403);
    expect(await json(forbidden)).toMatchObject({
      error: "INSUFFICIENT_SCOPE",
      requiredScope: "posts:write",
    });
    const owner = await seedAccount(db);
    const theirs = await seedConnection(db, owner.accountId, "bluesky");
    const other = await seedAccount(db);
    const answer = await json(await validate(app, other.key, { text: "x", connectionIds: [theirs] }));
    expect(answer.targets).toEqual([
      expect.objectContaining({
        connectionId: theirs,
        platform: null,
        errors: [expect.objectContaining({ reason: "unknown" })],
      }),
    ]);
  });
});
