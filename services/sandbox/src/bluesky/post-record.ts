import type { StoredBlob } from "./state.ts";

/** Limits of `app.bsky.feed.post` and its embeds (the lexicons' numbers). */
export const POST_LIMITS = {
  graphemes: 300,
  bytes: 3000,
  images: 4,
  imageBytes: 1_000_000,
  videoBytes: 100_000_000,
  langs: 3,
};

/** A record problem: the XRPC error name and message. */
export type RecordProblem = { error: string; message: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const segmenter = new Intl.Segmenter("en", { granularity: "grapheme" });

/** Grapheme clusters in a text (what Bluesky's 300 limit counts). */
export function graphemeCount(text: string): number {
  let count = 0;
  for (const _ of segmenter.segment(text)) count += 1;
  return count;
}

type BlobLookup = (cid: string) => StoredBlob | undefined;

function checkBlobRef(
  value: unknown,
  path: string,
  accept: (mime: string) => boolean,
  maxSize: number,
  blobs: BlobLookup,
): RecordProblem | null {
  const ref = isObject(value) && isObject(value.ref) ? value.ref.$link : undefined;
  if (!isObject(value) || value.$type !== "blob" || typeof ref !== "string") {
    return { error: "InvalidRequest", message: `Invalid app.bsky.feed.post record: ${path} must be a blob` };
  }
  const blob = blobs(ref);
  if (!blob) return { error: "BlobNotFound", message: `Could not find blob: ${ref}` };
  if (!accept(blob.mimeType)) {
    return {
      error: "InvalidRequest",
      message: `Invalid app.bsky.feed.post record: ${path} has the wrong mime type (${blob.mimeType})`,
    };
  }
  if (blob.size > maxSize) {
    return {
      error: "InvalidRequest",
      message: `Invalid app.bsky.feed.post record: ${path} is larger than ${maxSize} bytes`,
    };
  }
  return null;
}

function checkEmbed(embed: unknown, blobs: BlobLookup): RecordProblem | null {
  if (embed === undefined) return null;
  const invalid = (message: string) => ({
    error: "InvalidRequest",
    message: `Invalid app.bsky.feed.post record: ${message}`,
  });
  if (!isObject(embed)) return invalid("embed must be an object");
  if (embed.$type === "app.bsky.embed.images") {
    const images = embed.images;
    if (!Array.isArray(images) || images.length === 0 || images.length > POST_LIMITS.images) {
      return invalid(`embed.images must hold 1 to ${POST_LIMITS.images} images`);
    }
    for (const [index, image] of images.entries()) {
      if (!isObject(image) || typeof image.alt !== "string")
        return invalid(`embed.images/${index}.alt is required`);
      const problem = checkBlobRef(
        image.image,
        `embed.images/${index}.image`,
        (mime) => mime.startsWith("image/"),
        POST_LIMITS.imageBytes,
        blobs,
      );
      if (problem) return problem;
    }
    return null;
  }
  if (embed.$type === "app.bsky.embed.video") {
    return checkBlobRef(
      embed.video,
      "embed.video",
      (mime) => mime === "video/mp4",
      POST_LIMITS.videoBytes,
      blobs,
    );
  }
  if (embed.$type === "app.bsky.embed.external") {
    const external = embed.external;
    if (
      !isObject(external) ||
      typeof external.uri !== "string" ||
      typeof external.title !== "string" ||
      typeof external.description !== "string"
    ) {
      return invalid("embed.external needs uri, title and description");
    }
    return null;
  }
  return invalid(`embed $type ${String(embed.$type).slice(0, 60)} is not supported by the sandbox`);
}

/**
 * Checks an `app.bsky.feed.post` record as a PDS validating its lexicon does: `$type`, `text`
 * at most 300 graphemes and 3000 bytes, a valid `createdAt`, at most 3 `langs`, and an embed of
 * images (1–4, each with alt text, image blobs ≤ 1 MB), a video (video/mp4 blob ≤ 100 MB) or an
 * external link. Blobs must have been uploaded by the same account.
 */
export function checkPostRecord(record: unknown, blobs: BlobLookup): RecordProblem | null {
  const invalid = (message: string) => ({
    error: "InvalidRequest",
    message: `Invalid app.bsky.feed.post record: ${message}`,
  });
  if (!isObject(record)) return invalid("Record must be an object");
  if (record.$type !== "app.bsky.feed.post") return invalid("Record/$type must be app.bsky.feed.post");
  const text = record.text;
  if (typeof text !== "string") return invalid('Record must have the property "text"');
  if (graphemeCount(text) > POST_LIMITS.graphemes)
    return invalid(`Record/text must not be longer than ${POST_LIMITS.graphemes} graphemes`);
  if (Buffer.byteLength(text, "utf8") > POST_LIMITS.bytes)
    return invalid(`Record/text must not be longer than ${POST_LIMITS.bytes} bytes`);
  if (
    typeof record.createdAt !== "string" ||
    Number.isNaN(Date.parse(record.createdAt)) ||
    !/^\d{4}-\d{2}-\d{2}T/.test(record.createdAt)
  ) {
    return invalid("Record/createdAt must be an valid datetime string");
  }
  const langs = record.langs;
  if (
    langs !== undefined &&
    (!Array.isArray(langs) ||
      langs.length > POST_LIMITS.langs ||
      !langs.every((lang) => typeof lang === "string"))
  ) {
    return invalid(`Record/langs must hold at most ${POST_LIMITS.langs} language tags`);
  }
  return checkEmbed(record.embed, blobs);
}
