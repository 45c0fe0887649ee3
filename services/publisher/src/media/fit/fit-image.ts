import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import sharp, { type Metadata, type Sharp } from "sharp";
import type { MediaStorage } from "../../contracts/storage.ts";
import { MediaError } from "../media-error.ts";
import { IMAGE_INPUT_LIMITS } from "../preflight/media-limits.ts";
import { collect } from "../probe/byte-source.ts";
import { derivedPath } from "./derived-path.ts";
import type { ImageProfile } from "./image-profiles.ts";
import { createLimiter, type Turn } from "./limiter.ts";

// libvips' operation cache keeps up to 50 MB of decoded images for reuse: no use here, where
// each image is made to fit once, and memory it would hold.
sharp.cache(false);

/** A copy of an image made to fit a platform, stored beside its original. */
export type FittedImage = { path: string; size: number; contentType: string; width: number; height: number };

/**
 * The image to fit: its storage path and a way to read it whole (bounded, RangeError past
 * `maxBytes`) into a buffer of its own, which `fitImage` frees once done.
 */
export type ImageSource = { path: string; load(maxBytes: number): Promise<Buffer> };

/**
 * How many images are made to fit at once in this process: one. Each decode and encode takes
 * about 35 MB of native memory for a 12-megapixel photo, and glibc keeps what each libvips and
 * libuv thread freed in that thread's own arena, so two at a time doubled the RSS growth of a
 * burst of 8 (96 MB against 46 MB, plain sharp resizes one or two at a time), for little gain in
 * throughput on the 2-core machines this runs on. A burst queues here. The service's figures:
 * `BENCH_ONLY=images npm run bench`.
 */
export const FIT_CONCURRENCY = 1;
/**
 * The process's one queue of image decoding: images made to fit and link-card thumbnails
 * (`link-preview/thumbnail.ts`) take their turns in it, so together they stay one at a time.
 */
export const imageLimiter = createLimiter(FIT_CONCURRENCY);

/**
 * The most images of one account waiting to be made to fit in this process: a carousel of 35
 * for TikTok, with room to spare. Past it the account's fit is refused ({@link QueueFullError}),
 * so no account piles up work; accounts take turns in {@link imageLimiter} besides.
 */
export const FIT_BACKLOG_PER_ACCOUNT = 40;

/** Whose fit it is (its account takes its turn with the others) and when it is no longer wanted. */
export type FitTurn = {
  accountId?: string;
  signal?: AbortSignal;
  /**
   * Told of a fit's failure while it still holds its turn, before the next fit starts: aborting
   * `signal` here drops the caller's other fits still waiting.
   */
  onFailure?: (error: unknown) => void;
};

const turnOf = ({ accountId, signal }: FitTurn): Turn =>
  accountId === undefined
    ? { key: "", ...(signal ? { signal } : {}) }
    : { key: `account:${accountId}`, maxWaiting: FIT_BACKLOG_PER_ACCOUNT, ...(signal ? { signal } : {}) };

const QUALITIES = [80, 70, 60, 50] as const;
/** Each round past the quality ladder shrinks the box by this much. */
const SHRINK = 0.75;
const MAX_SHRINK_ROUNDS = 4;

const CONTENT_TYPES = { jpeg: "image/jpeg", webp: "image/webp" } as const;
const EXTENSIONS = { jpeg: "jpg", webp: "webp" } as const;

type Rendered = { data: Buffer; width: number; height: number };

/**
 * Sources fitted before in this process: their bytes' SHA-256 and format, under a fingerprint of
 * the stored object (its size, first and last {@link FINGERPRINT_BYTES}). A worker fitting the
 * same original for another target, or again, finds the derived copy from it without loading and
 * hashing the whole original. An original written again with other bytes gets another fingerprint
 * (unless its size and both ends are unchanged: then the copy of its earlier bytes is reused).
 */
const knownSources = new Map<string, { fingerprint: string; digest: string; format: string }>();
const MAX_KNOWN_SOURCES = 1000;
const FINGERPRINT_BYTES = 64 * 1024;

async function fingerprintOf(storage: MediaStorage, path: string): Promise<string | undefined> {
  try {
    const { size } = await storage.head(path);
    if (size === 0) return undefined;
    const hash = createHash("sha256").update(`${size}:`);
    const head = await storage.read(path, { start: 0, end: Math.min(size, FINGERPRINT_BYTES) - 1 });
    hash.update(await collect(head.stream, FINGERPRINT_BYTES));
    const tailStart = Math.max(0, size - FINGERPRINT_BYTES);
    const tail = await storage.read(path, { start: tailStart, end: size - 1 });
    hash.update(await collect(tail.stream, FINGERPRINT_BYTES));
    return hash.digest("hex");
  } catch {
    return undefined;
  }
}

function remember(path: string, known: { fingerprint: string; digest: string; format: string }): void {
  knownSources.delete(path);
  knownSources.set(path, known);
  if (knownSources.size > MAX_KNOWN_SOURCES) {
    const oldest = knownSources.keys().next().value;
    if (oldest !== undefined) knownSources.delete(oldest);
  }
}

/** The copy made earlier from the same bytes, found from what this process knows of the source. */
async function knownCopy(
  storage: MediaStorage,
  sourcePath: string,
  fingerprint: string | undefined,
  profile: ImageProfile,
): Promise<FittedImage | undefined> {
  const known = knownSources.get(sourcePath);
  if (!known || fingerprint === undefined || known.fingerprint !== fingerprint) return undefined;
  const path = derivedPath(sourcePath, profile.id, known.digest, EXTENSIONS[profile.outputFor(known.format)]);
  if (!(await storage.exists(path))) return undefined;
  return storedCopy(storage, path, profile);
}

const decoder = (input: Buffer): Sharp =>
  sharp(input, {
    limitInputPixels: IMAGE_INPUT_LIMITS.maxPixels,
    failOn: "error",
    sequentialRead: true,
    autoOrient: true,
  });

function encode(pipeline: Sharp, format: "jpeg" | "webp", quality: number): Promise<Rendered> {
  // No Huffman optimisation: it holds every DCT coefficient of the picture until the end (9 MB
  // for 2000 × 1500, and most of the RSS left behind), for files about 15% smaller.
  const encoded =
    format === "jpeg" ? pipeline.jpeg({ quality, optimiseCoding: false }) : pipeline.webp({ quality });
  return encoded
    .toBuffer({ resolveWithObject: true })
    .then(({ data, info }) => ({ data, width: info.width, height: info.height }));
}

/**
 * The picture made to fit: oriented as its EXIF says, within the profile's box (never enlarged),
 * transparency on white for JPEG, no metadata, and within `maxBytes`. The first try is one pass
 * (decode, shrink, encode at quality 80), as a plain resize would be; only a picture that comes out
 * too large is decoded once more to raw pixels, encoded down a quality ladder, and then shrunk.
 */
async function render(
  input: Buffer,
  meta: Metadata,
  format: "jpeg" | "webp",
  profile: ImageProfile,
): Promise<Rendered> {
  const { width, height } = meta.autoOrient;
  const landscape = width >= height;
  const boxWidth = landscape ? profile.maxLongSide : profile.maxShortSide;
  const boxHeight = landscape ? profile.maxShortSide : profile.maxLongSide;
  const fitted = (pipeline: Sharp, scale: number) => {
    const resized = pipeline.resize(
      Math.max(1, Math.floor(boxWidth * scale)),
      Math.max(1, Math.floor(boxHeight * scale)),
      {
        fit: "inside",
        withoutEnlargement: true,
      },
    );
    return format === "jpeg" && meta.hasAlpha ? resized.flatten({ background: "#ffffff" }) : resized;
  };
  const first = await encode(fitted(decoder(input), 1), format, QUALITIES[0]);
  if (first.data.length <= profile.maxBytes) return first;
  const raw = await fitted(decoder(input), 1).raw().toBuffer({ resolveWithObject: true });
  const fromRaw = () => sharp(raw.data, { raw: raw.info });
  for (let round = 0; round <= MAX_SHRINK_ROUNDS; round += 1) {
    const scale = SHRINK ** round;
    const pipeline = () =>
      round === 0
        ? fromRaw()
        : fromRaw().resize(
            Math.max(1, Math.floor(raw.info.width * scale)),
            Math.max(1, Math.floor(raw.info.height * scale)),
          );
    for (const quality of round === 0 ? QUALITIES.slice(1) : QUALITIES) {
      const rendered = await encode(pipeline(), format, quality);
      if (rendered.data.length <= profile.maxBytes) return rendered;
    }
  }
  throw new MediaError(
    "MEDIA_NOT_ACCEPTED",
    `The image could not be made smaller than ${profile.maxBytes} bytes.`,
  );
}

/** Reads a stored derived copy's facts back (it was made earlier for the same bytes). */
async function storedCopy(
  storage: MediaStorage,
  path: string,
  profile: ImageProfile,
): Promise<FittedImage | undefined> {
  let bytes: Buffer;
  let contentType: string;
  try {
    const object = await storage.read(path);
    contentType = object.contentType;
    bytes = await collect(object.stream, profile.maxBytes);
  } catch {
    return undefined;
  }
  const meta = await sharp(bytes)
    .metadata()
    .catch(() => undefined);
  if (!meta?.width || !meta.height) return undefined;
  return { path, size: bytes.length, contentType, width: meta.width, height: meta.height };
}

/**
 * The copy of an image made to fit `profile`, stored beside the original at a path named after
 * the original's bytes and the profile (see `derivedPath`): made once, then found again (the same
 * bytes are never fitted twice, by the API or by a worker). Decoding is bounded: at most
 * {@link FIT_CONCURRENCY} images at a time in this process, files of at most
 * `IMAGE_INPUT_LIMITS.maxBytes`, pictures of at most `maxPixels`. An image that cannot be decoded
 * or made to fit throws a permanent `MediaError`; the original is never changed. With an account,
 * the fit takes its turn among accounts and is refused (`QueueFullError`) past
 * {@link FIT_BACKLOG_PER_ACCOUNT} waiting; once `signal` aborts, a fit still waiting never runs.
 */
export function fitImage(
  storage: MediaStorage,
  source: ImageSource,
  profile: ImageProfile,
  turn: FitTurn = {},
): Promise<FittedImage> {
  return fitInTurn(storage, source, profile, turn, { store: true });
}

/**
 * What {@link fitImage} would make of an image, made in the same turns and with the same limits
 * but never stored (a dry run): the copy made earlier for the same bytes when there is one, else
 * the picture rendered now and dropped. `path` is where the copy would be stored.
 */
export function previewFitImage(
  storage: MediaStorage,
  source: ImageSource,
  profile: ImageProfile,
  turn: FitTurn = {},
): Promise<FittedImage> {
  return fitInTurn(storage, source, profile, turn, { store: false });
}

type FitMode = { store: boolean };

function fitInTurn(
  storage: MediaStorage,
  source: ImageSource,
  profile: ImageProfile,
  turn: FitTurn,
  mode: FitMode,
): Promise<FittedImage> {
  return imageLimiter.run(async () => {
    try {
      return await loadAndFit(storage, source, profile, mode);
    } catch (error) {
      turn.onFailure?.(error);
      throw error;
    }
  }, turnOf(turn));
}

async function loadAndFit(
  storage: MediaStorage,
  source: ImageSource,
  profile: ImageProfile,
  mode: FitMode,
): Promise<FittedImage> {
  const fingerprint = await fingerprintOf(storage, source.path);
  const known = await knownCopy(storage, source.path, fingerprint, profile);
  if (known) return known;
  let input: Buffer;
  try {
    input = await source.load(IMAGE_INPUT_LIMITS.maxBytes);
  } catch (error) {
    if (error instanceof RangeError) {
      throw new MediaError(
        "MEDIA_NOT_ACCEPTED",
        `The image is larger than ${IMAGE_INPUT_LIMITS.maxBytes} bytes.`,
      );
    }
    throw error;
  }
  try {
    return await fitLoaded(storage, source.path, input, profile, fingerprint, mode);
  } finally {
    release(input);
  }
}

/**
 * Frees a loaded source file's memory now rather than at the next full garbage collection (as
 * the local store frees written chunks): a burst of photos otherwise leaves their files, 4 MB
 * each, in the process until V8 gets round to them. Only a buffer that spans an `ArrayBuffer` of
 * its own is freed, once sharp is done with it.
 */
function release(input: Buffer): void {
  const buffer = input.buffer;
  if (!(buffer instanceof ArrayBuffer) || buffer.detached || buffer.resizable) return;
  if (input.byteOffset !== 0 || input.byteLength !== buffer.byteLength) return;
  try {
    buffer.transfer(0);
  } catch {
    // Not detachable: the collector frees it.
  }
}

async function fitLoaded(
  storage: MediaStorage,
  sourcePath: string,
  input: Buffer,
  profile: ImageProfile,
  fingerprint: string | undefined,
  mode: FitMode,
): Promise<FittedImage> {
  const digest = createHash("sha256").update(input).digest("hex");
  const meta = await decoder(input)
    .metadata()
    .catch((error: Error) => {
      throw new MediaError("MEDIA_NOT_ACCEPTED", `The image could not be read (${error.message}).`);
    });
  if (fingerprint !== undefined) remember(sourcePath, { fingerprint, digest, format: meta.format });
  const format = profile.outputFor(meta.format);
  const path = derivedPath(sourcePath, profile.id, digest, EXTENSIONS[format]);
  if (await storage.exists(path)) {
    const stored = await storedCopy(storage, path, profile);
    if (stored) return stored;
  }
  let rendered: Rendered;
  try {
    rendered = await render(input, meta, format, profile);
  } catch (error) {
    if (error instanceof MediaError) throw error;
    throw new MediaError("MEDIA_NOT_ACCEPTED", `The image could not be read (${(error as Error).message}).`);
  }
  const contentType = CONTENT_TYPES[format];
  if (mode.store) {
    await storage.write(path, Readable.from([rendered.data]), {
      contentType,
      expectedBytes: rendered.data.length,
    });
  }
  return { path, size: rendered.data.length, contentType, width: rendered.width, height: rendered.height };
}
