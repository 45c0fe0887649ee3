import type { MediaItem, Platform, PostContent } from "../../contracts/post.ts";
import type { MediaStorage } from "../../contracts/storage.ts";
import { PublisherError } from "../../errors.ts";
import { type FitTurn, fitImage, previewFitImage } from "../fit/fit-image.ts";
import { type ImageProfile, imageProfileFor } from "../fit/image-profiles.ts";
import { createLimiter, QueueFullError } from "../fit/limiter.ts";
import { MediaError } from "../media-error.ts";
import { type ByteSource, headOf, storageSource } from "../probe/byte-source.ts";
import { imageFacts } from "../probe/image-facts.ts";
import { isoVideoFacts } from "../probe/iso-movie.ts";
import type { ImportedMedia, RemoteImporter } from "../remote-import.ts";
import { SNIFF_BYTES, sniffMediaType } from "../sniff.ts";
import type { MediaFacts } from "./media-facts.ts";
import { inspectMedia, type MediaInspection } from "./media-inspect.ts";
import { IMAGE_INPUT_LIMITS } from "./media-limits.ts";
import { type CreatorLimits, mediaProblemFor } from "./media-rules.ts";

/** A target of the post, with what its account allows (a TikTok creator's longest video). */
export type PreflightTarget = { connectionId: string; platform: Platform; creator?: CreatorLimits };

/** Why the post's media is refused; the API answers it as a 400 with `code`. */
export class MediaRefusal extends Error {
  override name = "MediaRefusal";
  constructor(
    readonly code: "VALIDATION_FAILED" | "CONTENT_NOT_ACCEPTED" | "MEDIA_NOT_FOUND",
    message: string,
    readonly details: Record<string, unknown>,
  ) {
    super(message);
  }
}

export type PreflightInput = {
  content: PostContent;
  targets: readonly PreflightTarget[];
  /** Where in the request a media item came from (`videoUrl`, `mediaUrls.1`, `mediaItems.0`). */
  fieldOf(item: MediaItem, index: number): string;
  /**
   * Calls the check off (the request ran out of time): imports stop, the check fails, and what
   * it imported is deleted.
   */
  signal?: AbortSignal;
  /** The account posting: its images take their turn with other accounts' (a queue each). */
  accountId?: string;
};

/** How soon an account whose backlog of images to fit is full is told to try again. */
export const FIT_BUSY_RETRY_AFTER_SECONDS = 10;

/** Why a post's fit still waiting was dropped: another of its fits was refused first. */
class FitDropped extends Error {
  override name = "FitDropped";
}

/** A copy of foreign media this check imported (and fitted), the request's to record or delete. */
export type ImportedCopy = ImportedMedia & {
  /** The copies made of it to fit a platform, stored beside it. */
  derived: string[];
};

/** What a passed check gives: the content to store, and the copies it imported for it. */
export type PreflightResult = { content: PostContent; imported: ImportedCopy[] };

/** Checks a post's media against its targets when the post is made, and makes what can be fixed fit. */
export interface MediaPreflight {
  /**
   * The content to store (foreign media replaced by its imported copy) and the copies imported,
   * or throws a {@link MediaRefusal}; a check that fails (or is called off) first deletes every
   * copy it imported.
   */
  check(input: PreflightInput): Promise<PreflightResult>;
  /**
   * The dry run of {@link check}: every target's verdict on the media (its refusal, or the copies
   * its images would be made into), storing nothing: foreign media is imported to be read and
   * deleted again, images are made to fit without keeping the copies. Throws what refuses the
   * post as a whole (a {@link MediaRefusal} without a target), or a 429 when the account's images
   * cannot take their turn.
   */
  inspect(input: PreflightInput): Promise<MediaInspection>;
}

/** How much foreign media one post may bring in while its request waits. */
export type ImportLimits = {
  /** Imports at once (default {@link IMPORT_CONCURRENCY}). */
  concurrency?: number;
  /** Bytes all its imports may total, as their hosts announce them (default {@link MAX_IMPORT_BYTES_PER_POST}). */
  maxBytesPerPost?: number;
};

/** Imports of one post made at once: a few hosts in parallel, not 35 downloads at a time. */
export const IMPORT_CONCURRENCY = 3;

/**
 * The bytes one post may import: 2 GiB, four uploads at the 512 MiB limit (a post has one video,
 * or at most 35 photos, each far below it); past it the post is refused before the file is read.
 */
export const MAX_IMPORT_BYTES_PER_POST = 2 * 1024 * 1024 * 1024;

export type MediaPreflightDeps = {
  storage: MediaStorage;
  /** Imports media at other URLs; without it they are left to the workers, unchecked here. */
  importRemote?: RemoteImporter;
  importLimits?: ImportLimits;
};

/** A media item found in storage and read: where it is, and what its bytes are. */
export type CheckedMedia = {
  item: MediaItem;
  path: string;
  source: ByteSource;
  facts: MediaFacts;
  /** The import this item is, whose fitted copies go with it. */
  imported?: ImportedCopy;
};

type Checked = CheckedMedia;

/** The budget of bytes a post's imports share: each reserves its announced size before reading. */
export class ImportBudgetExceeded extends MediaError {
  constructor(
    readonly limit: number,
    bytes: number,
  ) {
    super(
      "MEDIA_TOO_LARGE",
      `The media one post imports may total at most ${limit} bytes (2 GiB by default); this file's ${bytes} bytes would go past it. Upload large files (POST /api/v2/upload) and post their URLs.`,
    );
    this.name = "ImportBudgetExceeded";
  }
}

function importBudget(limit: number): (bytes: number) => void {
  let reserved = 0;
  return (bytes) => {
    if (reserved + bytes > limit) throw new ImportBudgetExceeded(limit, bytes);
    reserved += bytes;
  };
}

/** Deletes imported copies and their fitted copies (a failure to delete is left: nothing to answer). */
export async function discardImports(
  storage: MediaStorage,
  imported: readonly ImportedCopy[],
): Promise<void> {
  const paths = imported.flatMap((copy) => [copy.path, ...copy.derived]);
  await Promise.all(paths.map((path) => storage.delete(path).catch(() => undefined)));
}

/** The import of one request: its copies, its shared budget, and the signal that calls it off. */
export type ImportRun = {
  copies: ImportedCopy[];
  reserveBytes: (bytes: number) => void;
  signal: AbortSignal;
};

const invalid = (field: string, message: string, extra: Record<string, unknown> = {}) =>
  new MediaRefusal("VALIDATION_FAILED", "The request is not valid in the body.", {
    issues: [{ path: field, message }],
    ...extra,
  });

/** A whole file, refused (RangeError) past `maxBytes` before a byte is read. */
async function loadWhole(source: ByteSource, maxBytes: number): Promise<Buffer> {
  if (source.size > maxBytes) throw new RangeError(`The file is larger than ${maxBytes} bytes.`);
  return source.read(0, source.size - 1);
}

const KINDS: Record<string, string> = {
  "image/jpeg": "a JPEG image",
  "image/png": "a PNG image",
  "image/gif": "a GIF image",
  "image/webp": "a WebP image",
  "video/mp4": "an MP4 video",
  "video/quicktime": "a QuickTime (MOV) video",
  "video/webm": "a WebM video",
};

/**
 * The media preflight: every media item is found in our storage (foreign media imported first,
 * when an importer is given), typed from its bytes (a declared type they contradict is refused),
 * read (an MP4 or MOV movie header by our box reader, an image's header through sharp) and checked
 * against each target's platform (`mediaProblemFor`); then each image is made to fit each
 * platform that takes it (`fitImage`), so the workers find the copies ready. Nothing is stored as
 * a post before this passes.
 */
export function createMediaPreflight(deps: MediaPreflightDeps): MediaPreflight {
  const { storage } = deps;

  async function locate(
    item: MediaItem,
    field: string,
    run: ImportRun,
  ): Promise<{ item: MediaItem; path: string; imported?: ImportedCopy } | undefined> {
    const own = storage.pathOf(item.url);
    if (own !== undefined) {
      if (!(await storage.exists(own))) {
        throw new MediaRefusal("MEDIA_NOT_FOUND", "Nothing was uploaded at this media URL (yet).", {
          url: item.url,
        });
      }
      return { item, path: own };
    }
    if (!deps.importRemote) return undefined;
    let copy: ImportedCopy;
    try {
      const imported = await deps.importRemote(item.url, {
        signal: run.signal,
        reserveBytes: run.reserveBytes,
      });
      copy = { ...imported, derived: [] };
      run.copies.push(copy);
    } catch (error) {
      if (!(error instanceof MediaError) || run.signal.aborted) throw error;
      throw invalid(field, `could not be copied from ${item.url}: ${error.message}`, {
        url: item.url,
        reason: error.code,
        ...(error instanceof ImportBudgetExceeded ? { limit: { maxImportBytesPerPost: error.limit } } : {}),
      });
    }
    return { item: { ...item, url: storage.publicUrl(copy.path) }, path: copy.path, imported: copy };
  }

  async function factsOf(item: MediaItem, path: string, field: string): Promise<Checked> {
    const { size } = await storage.head(path);
    if (size === 0) throw invalid(field, "is an empty file", { url: item.url });
    const source = storageSource(storage, path, size);
    const detected = sniffMediaType(await headOf(source, SNIFF_BYTES));
    if (!detected) {
      throw invalid(field, "is not a JPEG, PNG, GIF, WebP, MP4, MOV or WebM file", { url: item.url });
    }
    const actual = detected.startsWith("video/") ? "VIDEO" : "IMAGE";
    if (actual !== item.mediaType) {
      throw invalid(field, `is declared ${item.mediaType} but the file is ${KINDS[detected]} (${detected})`, {
        url: item.url,
        declared: item.mediaType,
        detected,
      });
    }
    let facts: MediaFacts | undefined;
    if (detected === "video/webm") {
      facts = { kind: "video", bytes: size, container: "webm", metadataRead: false };
    } else if (actual === "VIDEO") {
      facts = await isoVideoFacts(source, detected === "video/quicktime" ? "mov" : "mp4");
      if (!facts.metadataRead) {
        throw invalid(
          field,
          `is not a readable ${detected === "video/quicktime" ? "MOV" : "MP4"} video: no movie header (moov) was found`,
          {
            url: item.url,
          },
        );
      }
    } else {
      facts = await imageFacts(source);
      if (!facts) throw invalid(field, `could not be read as ${KINDS[detected]}`, { url: item.url });
    }
    return { item, path, source, facts };
  }

  /** Why the target's platform refuses this media (as a create answers it), or undefined. */
  function problemFor(checked: Checked, target: PreflightTarget): MediaRefusal | undefined {
    const problem = mediaProblemFor(target.platform, checked.facts, target.creator);
    if (!problem) return undefined;
    return new MediaRefusal(
      "CONTENT_NOT_ACCEPTED",
      `${problem.message} (${checked.item.url}, connection ${target.connectionId}).`,
      {
        connectionId: target.connectionId,
        platform: target.platform,
        url: checked.item.url,
        limit: problem.limit,
        value: problem.value,
      },
    );
  }

  function checkTargets(checked: Checked, targets: readonly PreflightTarget[]): void {
    for (const target of targets) {
      const refusal = problemFor(checked, target);
      if (refusal) throw refusal;
    }
  }

  async function fit(
    checked: Checked,
    profile: ImageProfile,
    target: PreflightTarget,
    turn: FitTurn,
  ): Promise<void> {
    try {
      const fitted = await fitImage(
        storage,
        { path: checked.path, load: (maxBytes) => loadWhole(checked.source, maxBytes) },
        profile,
        turn,
      );
      checked.imported?.derived.push(fitted.path);
    } catch (error) {
      throw fitFailure(error, checked, target);
    }
  }

  /**
   * A fit's failure as the request answers it: the account's backlog full (thrown: 429
   * `RATE_LIMITED` with Retry-After), an image that cannot be made to fit (returned: the target's
   * CONTENT_NOT_ACCEPTED), anything else thrown as it is.
   */
  function fitFailure(error: unknown, checked: Checked, target: PreflightTarget): MediaRefusal {
    if (error instanceof QueueFullError) {
      throw new PublisherError(
        "RATE_LIMITED",
        `This account already has ${error.maxWaiting} images waiting to be made to fit; try again in ${FIT_BUSY_RETRY_AFTER_SECONDS} s.`,
        { maxWaitingImages: error.maxWaiting, retryAfterSeconds: FIT_BUSY_RETRY_AFTER_SECONDS },
        { "Retry-After": String(FIT_BUSY_RETRY_AFTER_SECONDS) },
      );
    }
    if (!(error instanceof MediaError)) throw error;
    return new MediaRefusal(
      "CONTENT_NOT_ACCEPTED",
      `${error.message} (${checked.item.url}, connection ${target.connectionId}).`,
      {
        connectionId: target.connectionId,
        platform: target.platform,
        url: checked.item.url,
      },
    );
  }

  return {
    async check({ content, targets, fieldOf, signal, accountId }) {
      const { run, stop, finish } = startRun(signal);
      try {
        const found = await locateAll(content.mediaItems, fieldOf, run, stop);
        const checked: Checked[] = [];
        const items: MediaItem[] = [];
        for (const [index, original] of content.mediaItems.entries()) {
          const located = found[index];
          if (!located) {
            items.push(original);
            continue;
          }
          items.push(located.item);
          const facts = await factsOf(located.item, located.path, fieldOf(original, index));
          checkTargets(facts, targets);
          checked.push({ ...facts, imported: located.imported });
          stop.signal.throwIfAborted();
        }
        return {
          content: await fitAll(checked, targets, content, items, {
            ...(accountId === undefined ? {} : { accountId }),
            signal: stop.signal,
          }),
          imported: run.copies,
        };
      } catch (error) {
        if (!stop.signal.aborted) stop.abort(error);
        await discardImports(storage, run.copies);
        throw error;
      } finally {
        finish();
      }
    },
    inspect: (input) =>
      inspectMedia(
        {
          startRun,
          locateAll,
          factsOf,
          problemFor,
          checkPixelBudget,
          fitFailure,
          previewFit: (checked, profile, turn) =>
            previewFitImage(
              storage,
              { path: checked.path, load: (maxBytes) => loadWhole(checked.source, maxBytes) },
              profile,
              turn,
            ),
          discard: (copies) => discardImports(storage, copies),
        },
        input,
      ),
  };

  /**
   * One request's media run: its imports (and their shared budget), and the controller that calls
   * it off, which `signal` (the request's deadline) aborts too; `finish` lets go of `signal`.
   */
  function startRun(signal: AbortSignal | undefined): {
    run: ImportRun;
    stop: AbortController;
    finish(): void;
  } {
    const stop = new AbortController();
    const callOff = () => stop.abort(signal?.reason);
    signal?.addEventListener("abort", callOff, { once: true });
    if (signal?.aborted) callOff();
    const run: ImportRun = {
      copies: [],
      reserveBytes: importBudget(deps.importLimits?.maxBytesPerPost ?? MAX_IMPORT_BYTES_PER_POST),
      signal: stop.signal,
    };
    return { run, stop, finish: () => signal?.removeEventListener("abort", callOff) };
  }

  /**
   * Every item found in storage, foreign ones imported a few at a time. The first failure calls
   * the rest off (those waiting never start) and is the one thrown, once every import has settled
   * and its copy is known (so none is left behind).
   */
  async function locateAll(
    mediaItems: readonly MediaItem[],
    fieldOf: PreflightInput["fieldOf"],
    run: ImportRun,
    stop: AbortController,
  ): Promise<Array<Awaited<ReturnType<typeof locate>>>> {
    const limiter = createLimiter(deps.importLimits?.concurrency ?? IMPORT_CONCURRENCY);
    const settled = await Promise.allSettled(
      mediaItems.map((item, index) =>
        limiter.run(async () => {
          stop.signal.throwIfAborted();
          try {
            return await locate(item, fieldOf(item, index), run);
          } catch (error) {
            if (!stop.signal.aborted) stop.abort(error);
            throw error;
          }
        }),
      ),
    );
    stop.signal.throwIfAborted();
    return settled.map((outcome) => (outcome.status === "fulfilled" ? outcome.value : undefined));
  }

  /** Refuses a post whose images, each decoded once per platform, add up to too many pixels. */
  function checkPixelBudget(decodes: readonly MediaFacts[]): void {
    let pixels = 0;
    for (const facts of decodes) if (facts.kind === "image") pixels += facts.width * facts.height;
    if (pixels <= IMAGE_INPUT_LIMITS.maxPixelsPerPost) return;
    throw new MediaRefusal(
      "CONTENT_NOT_ACCEPTED",
      `The post's images are made to fit from at most ${IMAGE_INPUT_LIMITS.maxPixelsPerPost} pixels in all (each image once per platform); these have ${pixels}.`,
      { limit: { maxPixelsPerPost: IMAGE_INPUT_LIMITS.maxPixelsPerPost }, value: { pixels } },
    );
  }

  /**
   * Each image made to fit each platform that takes it, within the post's budget of pixels, in
   * the account's turns; the content to store. The first fit refused (or the request called off)
   * drops the fits still waiting, and that refusal is thrown.
   */
  async function fitAll(
    checked: Checked[],
    targets: readonly PreflightTarget[],
    content: PostContent,
    items: MediaItem[],
    turn: FitTurn,
  ): Promise<PostContent> {
    const work: Array<{ entry: Checked; profile: ImageProfile; target: PreflightTarget }> = [];
    for (const entry of checked.filter((c) => c.facts.kind === "image")) {
      const seen = new Set<string>();
      for (const target of targets) {
        const profile = imageProfileFor(target.platform);
        if (!profile || seen.has(profile.id)) continue;
        seen.add(profile.id);
        work.push({ entry, profile, target });
      }
    }
    checkPixelBudget(work.map(({ entry }) => entry.facts));
    const stop = new AbortController();
    const signal = turn.signal ? AbortSignal.any([turn.signal, stop.signal]) : stop.signal;
    const dropped = new FitDropped();
    const onFailure = () => {
      if (!stop.signal.aborted) stop.abort(dropped);
    };
    // Every fit settles (a dropped one at once) before the refusal is thrown, so the copies made
    // are all known to the caller, which may delete them.
    const outcomes = await Promise.allSettled(
      work.map(({ entry, profile, target }) => fit(entry, profile, target, { ...turn, signal, onFailure })),
    );
    const reasons = outcomes.flatMap((outcome) => (outcome.status === "rejected" ? [outcome.reason] : []));
    if (reasons.length > 0) throw reasons.find((reason) => reason !== dropped) ?? signal.reason;
    return { ...content, mediaItems: items };
  }
}
