import type { MediaDigest } from "../kit/digest.ts";
import type { OAuthGrants } from "../kit/oauth-grants.ts";
import type { VideoMetadata } from "./video-metadata.ts";

/** The video resource YouTube answers the final chunk with (the parts the insert asked for). */
export type VideoResource = Record<string, unknown> & { kind: "youtube#video"; id: string };

/** A resumable upload session: created by the insert, filled by PUTs, closed by the last byte. */
export type UploadSession = {
  id: string;
  clientId: string;
  channelId: string;
  channelTitle: string;
  parts: string[];
  metadata: VideoMetadata;
  contentType: string;
  /** `X-Upload-Content-Length`, when the insert announced it. */
  declaredLength: number | null;
  /** The total size, once a chunk has named it. */
  total: number | null;
  digest: MediaDigest;
  expiresAt: Date;
  /** Set once, when the last byte arrived: the one video this session made. */
  video: VideoResource | null;
};

/** How a videos.insert sent its bytes (`uploadType`). */
export type UploadType = "resumable" | "multipart" | "media";

/**
 * A video YouTube holds: what `GET /_sandbox/youtube/videos` shows, and what videos.list renders
 * the requested parts from.
 */
export type PublishedVideo = {
  id: string;
  etag: string;
  channelId: string;
  channelTitle: string;
  clientId: string;
  uploadType: UploadType;
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: string;
  publishAt: string | null;
  selfDeclaredMadeForKids: boolean | null;
  contentType: string;
  bytes: number;
  sha256: string;
  uploadedAt: string;
};

/** Google OAuth and YouTube state, in memory. */
export type GoogleState = {
  grants: OAuthGrants;
  sessions: Map<string, UploadSession>;
  videos: PublishedVideo[];
  /** Runtime switch (`/_sandbox/settings`): whether a refresh returns a new refresh token. */
  rotateRefreshTokens: boolean;
};
