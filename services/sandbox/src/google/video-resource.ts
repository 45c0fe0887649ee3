import { randomBytes } from "node:crypto";
import type { PublishedVideo, UploadSession, VideoResource } from "./state.ts";

/** An 11-character video id, as YouTube's look. */
function newVideoId(): string {
  return randomBytes(8).toString("base64url").slice(0, 11);
}

/** The video a completed session made, as YouTube answers it (the parts the insert named), and its record. */
export function completeVideo(
  session: UploadSession,
  sha256: string,
  now: Date,
): { resource: VideoResource; published: PublishedVideo } {
  const id = newVideoId();
  const { metadata } = session;
  const resource: VideoResource = { kind: "youtube#video", etag: randomBytes(12).toString("base64url"), id };
  if (session.parts.includes("snippet")) {
    resource.snippet = {
      publishedAt: now.toISOString(),
      channelId: session.channelId,
      title: metadata.title,
      description: metadata.description,
      thumbnails: {},
      channelTitle: session.channelTitle,
      tags: metadata.tags,
      categoryId: metadata.categoryId,
      liveBroadcastContent: "none",
      localized: { title: metadata.title, description: metadata.description },
    };
  }
  if (session.parts.includes("status")) {
    resource.status = {
      uploadStatus: "uploaded",
      privacyStatus: metadata.privacyStatus,
      ...(metadata.publishAt ? { publishAt: metadata.publishAt } : {}),
      license: "youtube",
      embeddable: true,
      publicStatsViewable: true,
      ...(metadata.selfDeclaredMadeForKids === null
        ? {}
        : { selfDeclaredMadeForKids: metadata.selfDeclaredMadeForKids }),
    };
  }
  const published: PublishedVideo = {
    id,
    channelId: session.channelId,
    clientId: session.clientId,
    ...metadata,
    contentType: session.contentType,
    bytes: session.digest.bytes,
    sha256,
    uploadedAt: now.toISOString(),
  };
  return { resource, published };
}
