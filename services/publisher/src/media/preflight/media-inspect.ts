import type { MediaItem } from "../../contracts/post.ts";
import type { FitTurn, FittedImage } from "../fit/fit-image.ts";
import { type ImageProfile, imageProfileFor } from "../fit/image-profiles.ts";
import type { ImageFacts, MediaFacts } from "./media-facts.ts";
import type {
  CheckedMedia,
  ImportedCopy,
  ImportRun,
  MediaRefusal,
  PreflightInput,
  PreflightTarget,
} from "./media-preflight.ts";

/** An image as it would go to one target: what it is, and the copy made to fit the target's platform. */
export type FittedPreview = {
  /** Where in the request it came from (`mediaItems.0`, `mediaUrls.1`, `videoUrl`). */
  field: string;
  url: string;
  from: { format: ImageFacts["format"]; width: number; height: number; bytes: number };
  to: { contentType: string; width: number; height: number; bytes: number };
};

/**
 * The media's verdict for one target: refused (the refusal a create would answer, naming the
 * target), or taken, with each image as it would be made to fit the target's platform.
 */
export type TargetMediaVerdict = { refusal?: MediaRefusal; fitted: FittedPreview[] };

/** Every target's verdict, in the order of the targets given. */
export type MediaInspection = { targets: TargetMediaVerdict[] };

/** A media item found in storage (imported first when foreign). */
export type LocatedMedia = { item: MediaItem; path: string; imported?: ImportedCopy };

/** What {@link inspectMedia} uses of the media preflight: its steps, bound to its storage and importer. */
export type InspectTools = {
  startRun(signal: AbortSignal | undefined): { run: ImportRun; stop: AbortController; finish(): void };
  locateAll(
    items: readonly MediaItem[],
    fieldOf: PreflightInput["fieldOf"],
    run: ImportRun,
    stop: AbortController,
  ): Promise<Array<LocatedMedia | undefined>>;
  factsOf(item: MediaItem, path: string, field: string): Promise<CheckedMedia>;
  problemFor(checked: CheckedMedia, target: PreflightTarget): MediaRefusal | undefined;
  checkPixelBudget(decodes: readonly MediaFacts[]): void;
  fitFailure(error: unknown, checked: CheckedMedia, target: PreflightTarget): MediaRefusal;
  previewFit(checked: CheckedMedia, profile: ImageProfile, turn: FitTurn): Promise<FittedImage>;
  discard(copies: readonly ImportedCopy[]): Promise<void>;
};

/** A media item read, with where in the request it came from. */
type Entry = { checked: CheckedMedia; field: string; given: MediaItem };

/** One image made to fit one profile (shared by every target of that platform). */
type Fit = { entry: Entry; profile: ImageProfile; key: string };

const fitKey = (entry: Entry, profile: ImageProfile) => `${profile.id}\u0000${entry.checked.path}`;

/**
 * The images to make to fit for the targets taking the media: each image once per platform
 * profile among them (the preflight's own order and count, so the post's pixel budget is counted
 * as a create counts it).
 */
function fitsFor(media: readonly Entry[], targets: readonly PreflightTarget[]): Fit[] {
  const fits: Fit[] = [];
  for (const entry of media.filter((candidate) => candidate.checked.facts.kind === "image")) {
    const seen = new Set<string>();
    for (const target of targets) {
      const profile = imageProfileFor(target.platform);
      if (!profile || seen.has(profile.id)) continue;
      seen.add(profile.id);
      fits.push({ entry, profile, key: fitKey(entry, profile) });
    }
  }
  return fits;
}

function previewOf(entry: Entry, fitted: FittedImage): FittedPreview {
  const facts = entry.checked.facts as ImageFacts;
  return {
    field: entry.field,
    url: entry.given.url,
    from: { format: facts.format, width: facts.width, height: facts.height, bytes: facts.bytes },
    to: { contentType: fitted.contentType, width: fitted.width, height: fitted.height, bytes: fitted.size },
  };
}

/**
 * The media preflight's dry run: the media is located (foreign media imported), read and judged
 * for every target, as `check` does, but each target gets its own verdict instead of the first
 * refusal ending it, and nothing is kept: the images are made to fit without storing the copies
 * (`previewFitImage`), and every import is deleted at the end, whatever happened. What refuses
 * the post as a whole (media not found, bytes that are not what they claim, too many pixels) is
 * thrown as the create throws it.
 */
export async function inspectMedia(tools: InspectTools, input: PreflightInput): Promise<MediaInspection> {
  const { run, stop, finish } = tools.startRun(input.signal);
  try {
    const found = await tools.locateAll(input.content.mediaItems, input.fieldOf, run, stop);
    const media: Entry[] = [];
    for (const [index, given] of input.content.mediaItems.entries()) {
      const located = found[index];
      // Foreign media without an importer is left to the workers, unread here (as `check` leaves it).
      if (!located) continue;
      const field = input.fieldOf(given, index);
      media.push({ checked: await tools.factsOf(located.item, located.path, field), field, given });
      stop.signal.throwIfAborted();
    }
    const verdicts = input.targets.map((target) => ({
      target,
      refusal: media.map((entry) => tools.problemFor(entry.checked, target)).find(Boolean),
      fitted: [] as FittedPreview[],
    }));
    const taking = verdicts.filter((verdict) => !verdict.refusal).map((verdict) => verdict.target);
    const fits = fitsFor(media, taking);
    tools.checkPixelBudget(fits.map((fit) => fit.entry.checked.facts));
    const turn: FitTurn = { signal: stop.signal, ...(input.accountId ? { accountId: input.accountId } : {}) };
    const settled = await Promise.allSettled(
      fits.map((fit) => tools.previewFit(fit.entry.checked, fit.profile, turn)),
    );
    const previews = new Map(fits.map((fit, index) => [fit.key, settled[index]]));
    stop.signal.throwIfAborted();
    for (const verdict of verdicts) {
      const profile = imageProfileFor(verdict.target.platform);
      if (verdict.refusal || !profile) continue;
      for (const entry of media) {
        const outcome = previews.get(fitKey(entry, profile));
        if (!outcome) continue;
        if (outcome.status === "rejected") {
          verdict.refusal = tools.fitFailure(outcome.reason, entry.checked, verdict.target);
          verdict.fitted = [];
          break;
        }
        verdict.fitted.push(previewOf(entry, outcome.value));
      }
    }
    return {
      targets: verdicts.map(({ refusal, fitted }) => (refusal ? { refusal, fitted: [] } : { fitted })),
    };
  } finally {
    finish();
    await tools.discard(run.copies);
  }
}
