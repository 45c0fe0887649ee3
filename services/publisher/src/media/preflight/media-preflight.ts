import type { MediaItem, Platform, PostContent } from "../../contracts/post.ts";
import type { MediaStorage } from "../../contracts/storage.ts";
import { fitImage } from "../fit/fit-image.ts";
import { type ImageProfile, imageProfileFor } from "../fit/image-profiles.ts";
import { MediaError } from "../media-error.ts";
import { type ByteSource, headOf, storageSource } from "../probe/byte-source.ts";
import { imageFacts } from "../probe/image-facts.ts";
import { isoVideoFacts } from "../probe/iso-movie.ts";
import type { RemoteImporter } from "../remote-import.ts";
import { SNIFF_BYTES, sniffMediaType } from "../sniff.ts";
import type { MediaFacts } from "./media-facts.ts";
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
};

/** Checks a post's media against its targets when the post is made, and makes what can be fixed fit. */
export interface MediaPreflight {
  /** The content to store (foreign media replaced by its imported copy), or throws a {@link MediaRefusal}. */
  check(input: PreflightInput): Promise<PostContent>;
}

export type MediaPreflightDeps = {
  storage: MediaStorage;
  /** Imports media at other URLs; without it they are left to the workers, unchecked here. */
  importRemote?: RemoteImporter;
};

type Checked = { item: MediaItem; path: string; source: ByteSource; facts: MediaFacts };

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
 * read (an MP4 or MOV movie header through mp4box, an image's header through sharp) and checked
 * against each target's platform (`mediaProblemFor`); then each image is made to fit each
 * platform that takes it (`fitImage`), so the workers find the copies ready. Nothing is stored as
 * a post before this passes.
 */
export function createMediaPreflight(deps: MediaPreflightDeps): MediaPreflight {
  const { storage } = deps;

  async function locate(
    item: MediaItem,
    field: string,
  ): Promise<{ item: MediaItem; path: string } | undefined> {
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
    try {
      const { path } = await deps.importRemote(item.url);
      return { item: { ...item, url: storage.publicUrl(path) }, path };
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      throw invalid(field, `could not be copied from ${item.url}: ${error.message}`, {
        url: item.url,
        reason: error.code,
      });
    }
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
      if (!facts) throw invalid(field, `is not a readable ${KINDS[detected]}`, { url: item.url });
    }
    return { item, path, source, facts };
  }

  function checkTargets(checked: Checked, targets: readonly PreflightTarget[]): void {
    for (const target of targets) {
      const problem = mediaProblemFor(target.platform, checked.facts, target.creator);
      if (!problem) continue;
      throw new MediaRefusal(
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
  }

  async function fit(checked: Checked, profile: ImageProfile, target: PreflightTarget): Promise<void> {
    try {
      await fitImage(
        storage,
        { path: checked.path, load: (maxBytes) => loadWhole(checked.source, maxBytes) },
        profile,
      );
    } catch (error) {
      if (!(error instanceof MediaError)) throw error;
      throw new MediaRefusal(
        "CONTENT_NOT_ACCEPTED",
        `${error.message} (${checked.item.url}, connection ${target.connectionId}).`,
        {
          connectionId: target.connectionId,
          platform: target.platform,
          url: checked.item.url,
        },
      );
    }
  }

  return {
    async check({ content, targets, fieldOf }) {
      const checked: Checked[] = [];
      const items: MediaItem[] = [];
      for (const [index, original] of content.mediaItems.entries()) {
        const field = fieldOf(original, index);
        const located = await locate(original, field);
        if (!located) {
          items.push(original);
          continue;
        }
        items.push(located.item);
        const facts = await factsOf(located.item, located.path, field);
        checkTargets(facts, targets);
        checked.push(facts);
      }
      const fits: Promise<void>[] = [];
      for (const entry of checked.filter((c) => c.facts.kind === "image")) {
        const seen = new Set<string>();
        for (const target of targets) {
          const profile = imageProfileFor(target.platform);
          if (!profile || seen.has(profile.id)) continue;
          seen.add(profile.id);
          fits.push(fit(entry, profile, target));
        }
      }
      const outcomes = await Promise.allSettled(fits);
      const refused = outcomes.find((outcome) => outcome.status === "rejected");
      if (refused) throw (refused as PromiseRejectedResult).reason;
      return { ...content, mediaItems: items };
    },
  };
}
