import { Readable } from "node:stream";
import { type OpenConnection, withAccessToken } from "../connections/token-vault.ts";
import { mediaForPlatform } from "../media/platform-media.ts";
import { type AspectRatio, aspectRatioOf, type BlobRef } from "../platforms/bluesky/bluesky-client.ts";
import { firstLink, richTextOf } from "../platforms/bluesky/rich-text.ts";
import { newTid } from "../platforms/bluesky/tid.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { PlatformPublisherDeps, StepResult, TargetRun } from "./run-context.ts";

/** The handle of a Bluesky target: the record key (a TID) and time, chosen before createRecord. */
type BlueskyHandle = { rkey: string; repo: string; createdAt: string };

const MAX_IMAGES = 4;

const published = (handle: BlueskyHandle, uri: string): StepResult => ({
  kind: "published",
  platformPostId: uri,
  url: `https://bsky.app/profile/${handle.repo}/post/${handle.rkey}`,
});

/**
 * Publishes a Bluesky post (text, up to four images, or one video) with `createRecord` at a
 * record key chosen and saved beforehand. A retry with a saved key first reads the record back;
 * `RecordAlreadyExists` (or a 5xx / lost answer, which may have created it) is resolved by
 * reading it back too, so the post exists at most once.
 */
export async function publishToBluesky(run: TargetRun, deps: PlatformPublisherDeps): Promise<StepResult> {
  const bluesky = deps.adapters.bluesky;
  const opened = await deps.vault.open(run.target.connectionId);
  const { row, secrets } = opened;
  const service = secrets.service ?? "";
  let handle = run.target.platformHandle as BlueskyHandle | null;
  if (handle?.rkey) {
    const existing = await bluesky.getRecord(service, { repo: handle.repo, rkey: handle.rkey });
    if (existing) return published(handle, existing.uri);
  } else {
    handle = {
      rkey: newTid(deps.clock.now()),
      repo: secrets.did ?? row.platformAccountId,
      createdAt: deps.clock.now().toISOString(),
    };
    await run.saveHandle(handle);
  }
  const saved = handle;
  const { text, facets } = await richTextOf(run.target.content.caption ?? "", (name) =>
    bluesky.resolveHandle(service, name),
  );
  const embed =
    run.target.content.mediaItems.length > 0
      ? await embedFor(run, deps)
      : await linkCardEmbed(run, deps, firstLink(facets));
  const record = {
    $type: "app.bsky.feed.post",
    text,
    ...(facets.length > 0 ? { facets } : {}),
    createdAt: saved.createdAt,
    ...embed,
  };
  try {
    // A text post goes straight on with the token opened above; one with media was a while
    // uploading its blobs, so its token is looked at again.
    const fresh = run.target.content.mediaItems.length === 0 ? opened : undefined;
    const created = await withAccessToken(
      deps.vault,
      run.target.connectionId,
      ({ secrets: current }) =>
        bluesky.createRecord(service, current.accessToken, { repo: saved.repo, rkey: saved.rkey, record }),
      fresh,
    );
    return published(saved, created.uri);
  } catch (error) {
    const maybeCreated =
      error instanceof PlatformError &&
      (error.reason === "RecordAlreadyExists" || error.kind === "transient");
    if (!maybeCreated) throw error;
    const existing = await bluesky.getRecord(service, { repo: saved.repo, rkey: saved.rkey });
    if (existing) return published(saved, existing.uri);
    throw error;
  }
}

/** The post's embed: its images (≤ 4) or its video, each uploaded as a blob. */
async function embedFor(
  run: TargetRun,
  deps: PlatformPublisherDeps,
): Promise<{ embed?: Record<string, unknown> }> {
  const items = run.target.content.mediaItems;
  if (items.length === 0) return {};
  // Each item as Bluesky gets it (an image made to fit: JPEG, at most 1,000,000 bytes), uploaded as
  // a blob, with its picture's size as the embed's aspect ratio when known.
  const upload = async (index: number): Promise<{ blob: BlobRef; aspectRatio?: AspectRatio }> => {
    const media = await mediaForPlatform(
      deps.storage,
      await run.media(index),
      "bluesky",
      items[index]?.mediaType ?? "IMAGE",
    );
    const blob = await withAccessToken(deps.vault, run.target.connectionId, async (opened: OpenConnection) =>
      deps.adapters.bluesky.uploadBlob(opened.secrets.service ?? "", opened.secrets.accessToken, {
        body: await media.read(),
        size: media.size,
        contentType: media.contentType,
      }),
    );
    const aspectRatio = aspectRatioOf(media.width, media.height);
    return { blob, ...(aspectRatio ? { aspectRatio } : {}) };
  };
  const videoIndex = items.findIndex((item) => item.mediaType === "VIDEO");
  if (videoIndex >= 0) {
    const { blob, aspectRatio } = await upload(videoIndex);
    return { embed: { $type: "app.bsky.embed.video", video: blob, ...(aspectRatio ? { aspectRatio } : {}) } };
  }
  if (items.length > MAX_IMAGES) {
    throw new PlatformError(
      "bluesky",
      "permanent",
      "TOO_MANY_IMAGES",
      "A Bluesky post holds at most four images.",
    );
  }
  const images = [];
  for (let index = 0; index < items.length; index += 1) {
    const { blob, aspectRatio } = await upload(index);
    images.push({ alt: "", image: blob, ...(aspectRatio ? { aspectRatio } : {}) });
  }
  return { embed: { $type: "app.bsky.embed.images", images } };
}

/**
 * A text post's card for its first link (`app.bsky.embed.external`), as Bluesky's clients make
 * it: the page's title, description and thumbnail. Without a preview the post goes out without
 * a card; its link facet still works.
 */
async function linkCardEmbed(
  run: TargetRun,
  deps: PlatformPublisherDeps,
  uri: string | undefined,
): Promise<{ embed?: Record<string, unknown> }> {
  if (!uri || !deps.linkPreviewer) return {};
  const preview = await deps.linkPreviewer.preview(uri);
  if (!preview) return {};
  const thumb = preview.thumbnail
    ? await withAccessToken(deps.vault, run.target.connectionId, (opened: OpenConnection) =>
        deps.adapters.bluesky.uploadBlob(opened.secrets.service ?? "", opened.secrets.accessToken, {
          body: Readable.from([preview.thumbnail as Buffer]),
          size: (preview.thumbnail as Buffer).length,
          contentType: "image/jpeg",
        }),
      )
    : undefined;
  const external = {
    uri,
    title: preview.title,
    description: preview.description,
    ...(thumb ? { thumb } : {}),
  };
  return { embed: { $type: "app.bsky.embed.external", external } };
}
