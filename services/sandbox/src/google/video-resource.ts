import { randomBytes } from "node:crypto";
import type { PublishedVideo, UploadSession, UploadType, VideoResource } from "./state.ts";
import type { VideoMetadata } from "./video-metadata.ts";

/** An 11-character video id, as YouTube's look. */
function newVideoId(): string {
  return randomBytes(8).toString("base64url").slice(0, 11);
}

/** What a finished upload brings to make a video. */
export type FinishedUpload = {
  clientId: string;
  channel: { id: string; title: string };
  metadata: VideoMetadata;
  contentType: string;
  uploadType: UploadType;
  bytes: number;
  sha256: string;
};

/** The video a finished upload makes (uploaded at once: the twin does no processing). */
export function publishVideo(upload: FinishedUpload, now: Date): PublishedVideo {
  return {
    id: newVideoId(),
    etag: randomBytes(12).toString("base64url"),
    channelId: upload.channel.id,
    channelTitle: upload.channel.title,
    clientId: upload.clientId,
    uploadType: upload.uploadType,
    ...upload.metadata,
    contentType: upload.contentType,
    bytes: upload.bytes,
    sha256: upload.sha256,
    uploadedAt: now.toISOString(),
  };
}

/**
 * A video as YouTube answers it: `kind`, `etag` and `id` always, then each requested part the
 * twin models (`snippet`, `status`, `statistics`, `player`). A part it does not model
 * (`contentDetails`, `fileDetails`, `processingDetails`, …) is left out, as YouTube leaves out a
 * part it has no data for.
 */
export function renderVideo(video: PublishedVideo, parts: readonly string[]): VideoResource {
  const resource: VideoResource = { kind: "youtube#video", etag: video.etag, id: video.id };
  if (parts.includes("snippet")) {
    resource.snippet = {
      publishedAt: video.uploadedAt,
      channelId: video.channelId,
      title: video.title,
      description: video.description,
      thumbnails: {},
      channelTitle: video.channelTitle,
      ...(video.tags.length > 0 ? { tags: video.tags } : {}),
      categoryId: video.categoryId,
      liveBroadcastContent: "none",
      localized: { title: video.title, description: video.description },
    };
  }
  if (parts.includes("status")) {
    resource.status = {
      uploadStatus: "uploaded",
      privacyStatus: video.privacyStatus,
      ...(video.publishAt ? { publishAt: video.publishAt } : {}),
      license: "youtube",
      embeddable: true,
      publicStatsViewable: true,
      ...(video.selfDeclaredMadeForKids === null
        ? {}
        : { selfDeclaredMadeForKids: video.selfDeclaredMadeForKids }),
    };
  }
  if (parts.includes("statistics")) {
    resource.statistics = { viewCount: "0", likeCount: "0", favoriteCount: "0", commentCount: "0" };
  }
  if (parts.includes("player")) {
    resource.player = {
      embedHtml: `<iframe width="480" height="270" src="//www.youtube.com/embed/${video.id}" frameborder="0" allow="accelerometer; autoplay; clipboard-write; encrypted-media; gyroscope; picture-in-picture; web-share" referrerpolicy="strict-origin-when-cross-origin" allowfullscreen></iframe>`,
    };
  }
  return resource;
}

/** The video a completed resumable session made, as YouTube answers it (the parts the insert named), and its record. */
export function completeVideo(
  session: UploadSession,
  sha256: string,
  now: Date,
): { resource: VideoResource; published: PublishedVideo } {
  const published = publishVideo(
    {
      clientId: session.clientId,
      channel: { id: session.channelId, title: session.channelTitle },
      metadata: session.metadata,
      contentType: session.contentType,
      uploadType: "resumable",
      bytes: session.digest.bytes,
      sha256,
    },
    now,
  );
  return { resource: renderVideo(published, session.parts), published };
}
