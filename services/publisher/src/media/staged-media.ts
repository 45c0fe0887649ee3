import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import type { MediaReader } from "../contracts/publishing.ts";
import type { MediaStorage } from "../contracts/storage.ts";
import { RangeNotServedError } from "../storage/errors.ts";
import { derivedPath } from "./fit/derived-path.ts";
import { BLUESKY_IMAGE, TIKTOK_IMAGE } from "./fit/image-profiles.ts";
import { MediaError } from "./media-error.ts";
import { IMAGE_INPUT_LIMITS } from "./preflight/media-limits.ts";
import { collect } from "./probe/byte-source.ts";

/** Media ready to publish: in the service's own storage, readable by byte range, with a public URL. */
export type StagedMedia = {
  path: string;
  size: number;
  contentType: string;
  publicUrl: string;
  /** Bytes `first…last` (inclusive), or the whole file. */
  read(range?: { first: number; last: number }): Promise<Readable>;
};

/** Where a target's copy of its foreign media item `index` is staged. */
export const stagingPath = (targetId: string, index: number) => `staged_${targetId}_${index}`;

/**
 * Deletes the staged copies of a target's media once the target is done (published or failed),
 * and the copies made from them to fit a platform: nothing reads them again. Media in our own
 * storage is never staged, so it (and its fitted copies, shared by every post) is never touched.
 */
export async function dropStagedMedia(storage: MediaStorage, targetId: string, items: number): Promise<void> {
  await Promise.all(
    Array.from({ length: items }, async (_, index) => {
      const path = stagingPath(targetId, index);
      await dropFittedCopies(storage, path).catch(() => undefined);
      await storage.delete(path);
    }),
  );
}

/** Deletes the copies of a staged image made to fit each platform (their paths name its bytes). */
async function dropFittedCopies(storage: MediaStorage, path: string): Promise<void> {
  if (!(await storage.exists(path))) return;
  const { size, contentType } = await storage.head(path);
  if (!contentType.startsWith("image/") || size > IMAGE_INPUT_LIMITS.maxBytes) return;
  const bytes = await collect((await storage.read(path)).stream, IMAGE_INPUT_LIMITS.maxBytes);
  const digest = createHash("sha256").update(bytes).digest("hex");
  await Promise.all(
    [BLUESKY_IMAGE, TIKTOK_IMAGE].flatMap((profile) =>
      ["jpg", "webp"].map((extension) => storage.delete(derivedPath(path, profile.id, digest, extension))),
    ),
  );
}

/**
 * Streams bytes `first…last` of `media` to `send` (one upload chunk, never whole in memory); the
 * read is closed however `send` ends, even when it failed before reading a byte.
 */
export async function sendRange<T>(
  media: StagedMedia,
  range: { first: number; last: number },
  send: (body: Readable) => Promise<T>,
): Promise<T> {
  const body = await media.read(range);
  try {
    return await send(body);
  } finally {
    body.destroy();
  }
}

/**
 * Media of a post, staged for publishing: a URL of the service's own storage is used in place;
 * any other URL is read once through the guarded {@link MediaReader} and copied to
 * `stagingPath` (kept, so a retry or a resumed upload reads the same bytes again by range, and
 * platforms that pull media get a URL of ours). The type is sniffed from the bytes either way.
 */
export async function stageMedia(
  deps: { storage: MediaStorage; reader: MediaReader },
  url: string,
  stagingPath: string,
): Promise<StagedMedia> {
  const own = deps.storage.pathOf(url);
  const path = own ?? stagingPath;
  if (own || (await deps.storage.exists(stagingPath))) {
    const opened = await deps.reader.open(deps.storage.publicUrl(path));
    (opened.stream as Readable).destroy();
    return stagedAt(deps.storage, path, opened.size, opened.contentType);
  }
  const opened = await deps.reader.open(url);
  try {
    await deps.storage.write(stagingPath, opened.stream as Readable, {
      contentType: opened.contentType,
      expectedBytes: opened.size,
    });
  } catch (error) {
    if (error instanceof MediaError) throw error;
    // A store may wrap the body's own failure (S3's IncompleteBodyError): a stall stays a stall.
    const cause = (opened.stream as Readable).errored;
    if (cause instanceof MediaError) throw cause;
    throw new MediaError("MEDIA_UNAVAILABLE", "The media could not be copied for publishing.", true);
  }
  return stagedAt(deps.storage, stagingPath, opened.size, opened.contentType);
}

/** Media already in our storage at `path`, as publishing reads it. */
export function stagedAt(
  storage: MediaStorage,
  path: string,
  size: number,
  contentType: string,
): StagedMedia {
  return {
    path,
    size,
    contentType,
    publicUrl: storage.publicUrl(path),
    read: async (range) => {
      try {
        return (await storage.read(path, range ? { start: range.first, end: range.last } : undefined)).stream;
      } catch (error) {
        if (!(error instanceof RangeNotServedError)) throw error;
        throw new MediaError(
          "MEDIA_UNAVAILABLE",
          "The media storage answered a range read with other bytes; none were sent.",
          true,
        );
      }
    },
  };
}
