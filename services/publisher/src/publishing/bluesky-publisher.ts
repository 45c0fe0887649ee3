import { type OpenConnection, withAccessToken } from "../connections/token-vault.ts";
import type { BlobRef } from "../platforms/bluesky/bluesky-client.ts";
import { newTid } from "../platforms/bluesky/tid.ts";
import { PlatformError } from "../platforms/errors.ts";
import type { PublisherDeps, StepResult, TargetRun } from "./run-context.ts";

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
export async function publishToBluesky(run: TargetRun, deps: PublisherDeps): Promise<StepResult> {
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
  const record = {
    $type: "app.bsky.feed.post",
    text: run.target.content.caption ?? "",
    createdAt: saved.createdAt,
    ...(await embedFor(run, deps)),
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
async function embedFor(run: TargetRun, deps: PublisherDeps): Promise<{ embed?: Record<string, unknown> }> {
  const items = run.target.content.mediaItems;
  if (items.length === 0) return {};
  const upload = (index: number): Promise<BlobRef> =>
    withAccessToken(deps.vault, run.target.connectionId, async (opened: OpenConnection) => {
      const media = await run.media(index);
      return deps.adapters.bluesky.uploadBlob(opened.secrets.service ?? "", opened.secrets.accessToken, {
        body: await media.read(),
        size: media.size,
        contentType: media.contentType,
      });
    });
  const videoIndex = items.findIndex((item) => item.mediaType === "VIDEO");
  if (videoIndex >= 0) return { embed: { $type: "app.bsky.embed.video", video: await upload(videoIndex) } };
  if (items.length > MAX_IMAGES) {
    throw new PlatformError(
      "bluesky",
      "permanent",
      "TOO_MANY_IMAGES",
      "A Bluesky post holds at most four images.",
    );
  }
  const images = [];
  for (let index = 0; index < items.length; index += 1) images.push({ alt: "", image: await upload(index) });
  return { embed: { $type: "app.bsky.embed.images", images } };
}
