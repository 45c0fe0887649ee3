import { readdir } from "node:fs/promises";
import { Readable } from "node:stream";
import { ApiError } from "@app/core";
import type { Database } from "@app/db";
import { DatabaseFixedWindow } from "@app/edge";
import { silentLogger, test } from "@app/testkit";
import { describe, expect, vi } from "vitest";
import { DEFAULT_RATE_LIMIT } from "../../src/config.ts";
import { createMediaPreflight } from "../../src/media/preflight/media-preflight.ts";
import type { RemoteImporter } from "../../src/media/remote-import.ts";
import { createFakePublishing } from "../../src/publishing.fake.ts";
import type { RouteDeps, TikTokCreatorLookup } from "../../src/routes/deps.ts";
import { publisherIdempotencyStore } from "../../src/routes/idempotent-create.ts";
import { preparePost } from "../../src/routes/prepare-post.ts";
import type { LocalDiskStorage } from "../../src/storage/local-disk.ts";
import { jpegImage } from "../media/images.ts";
import { call, fakeClock, publisherApp, seedAccount, seedConnection, testStorage } from "../support.ts";

const EVERY_PRIVACY = ["PUBLIC_TO_EVERYONE", "MUTUAL_FOLLOW_FRIENDS", "FOLLOWER_OF_CREATOR", "SELF_ONLY"];

async function upload(storage: LocalDiskStorage, name: string, bytes: Buffer) {
  const path = `med_${name}`;
  await storage.write(path, Readable.from([bytes]), {
    contentType: "image/jpeg",
    expectedBytes: bytes.length,
  });
  return storage.publicUrl(path);
}

async function storedPaths(storage: LocalDiskStorage): Promise<string[]> {
  return (await readdir(storage.options.dir)).filter(
    (name) => !name.endsWith(".meta.json") && !name.startsWith("."),
  );
}

/** The route dependencies the app builds, for calling `preparePost` with limits of the test's own. */
function routeDeps(
  db: Database,
  storage: LocalDiskStorage,
  extra: { tiktokCreator?: TikTokCreatorLookup; importRemote?: RemoteImporter } = {},
): RouteDeps {
  const clock = fakeClock("2026-06-15T06:00:00Z");
  return {
    db,
    clock,
    logger: silentLogger(),
    storage,
    publishing: createFakePublishing(db),
    limiter: new DatabaseFixedWindow(db, { namespace: "publisher", rule: DEFAULT_RATE_LIMIT, clock }),
    publishTimeoutMs: 1_000,
    presignExpiresSeconds: 900,
    tiktokCreator: extra.tiktokCreator,
    mediaPreflight: createMediaPreflight({ storage, importRemote: extra.importRemote }),
    idempotency: publisherIdempotencyStore(db, clock, 1_000),
  };
}

describe("the time a post's checks may take", () => {
  test("TikTok creator_info is asked of several connections at once, at most four", async ({ db }) => {
    const { accountId, key } = await seedAccount(db);
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await seedConnection(db, accountId, "tiktok"));
    let running = 0;
    let most = 0;
    let asked = 0;
    const { app, storage } = publisherApp(db, {
      tiktokCreator: async () => {
        asked += 1;
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setImmediate(resolve));
        running -= 1;
        return { privacyLevelOptions: EVERY_PRIVACY };
      },
    });
    const url = await upload(storage, "p.jpg", await jpegImage(640, 480));
    const res = await call(app, "POST", "/api/v1/publish", key, { mediaUrls: [url], connectionIds: ids });
    expect(res.status).toBe(200);
    expect(asked).toBe(20);
    expect(most).toBe(4);
  });

  test("a creator_info that does not answer in time lets the post through, as an unreachable one does", async ({
    db,
  }) => {
    const { accountId } = await seedAccount(db);
    const tiktok = await seedConnection(db, accountId, "tiktok");
    const storage = testStorage();
    const deps = routeDeps(db, storage, { tiktokCreator: () => new Promise(() => {}) });
    const url = await upload(storage, "p.jpg", await jpegImage(640, 480));
    const prepared = await preparePost(
      deps,
      accountId,
      { mediaUrls: [url], connectionIds: [tiktok] },
      { creatorInfoTimeoutMs: 1 },
    );
    expect(prepared.targets).toEqual([{ connectionId: tiktok, platform: "tiktok" }]);
  });

  test("checks past the deadline are a 504 in the platform's error body, and their imports are deleted", async ({
    db,
  }) => {
    const { accountId } = await seedAccount(db);
    const bluesky = await seedConnection(db, accountId, "bluesky");
    const storage = testStorage();
    const photo = await jpegImage(320, 240);
    let calledOff = false;
    const importRemote: RemoteImporter = async (url, request = {}) => {
      if (url.endsWith("/slow.jpg")) {
        // A host that never finishes: the import ends only when it is called off.
        await new Promise<void>((_resolve, reject) =>
          request.signal?.addEventListener("abort", () => {
            calledOff = true;
            reject(new Error("called off"));
          }),
        );
      }
      const path = `med_copy${url.length}.jpg`;
      await storage.write(path, Readable.from([photo]), {
        contentType: "image/jpeg",
        expectedBytes: photo.length,
      });
      return { path, contentType: "image/jpeg", sizeBytes: photo.length };
    };
    const deps = routeDeps(db, storage, { importRemote });
    const refusal = await preparePost(
      deps,
      accountId,
      {
        mediaUrls: ["https://elsewhere.example/a.jpg", "https://elsewhere.example/slow.jpg"],
        connectionIds: [bluesky],
      },
      { deadlineMs: 1 },
    ).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).status).toBe(504);
    expect((refusal as ApiError).toBody()).toMatchObject({
      error: "PREFLIGHT_TIMEOUT",
      message: expect.stringContaining("1 ms"),
      deadlineMs: 1,
    });
    await vi.waitFor(async () => {
      expect(calledOff).toBe(true);
      expect(await storedPaths(storage)).toEqual([]);
    });
    const rows = await db.query("SELECT 1 FROM publisher.media");
    expect(rows).toEqual([]);
  });
});
