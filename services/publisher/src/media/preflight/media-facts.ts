import type { CodecFamily, Container } from "./media-limits.ts";

/** What the bytes of a video say (unknown facts stay undefined: a WebM's duration, say). */
export type VideoFacts = {
  kind: "video";
  bytes: number;
  container: Container;
  /** The movie's duration in seconds. */
  durationSec?: number;
  /** The first video track; undefined when the file has none (an audio-only MP4). */
  video?: {
    codec: CodecFamily;
    /** The sample entry's codec string (`avc1.64001f`), as reported. */
    codecString: string;
    /** The picture as displayed (a 90° rotation in the track header swaps the sides). */
    width: number;
    height: number;
    fps?: number;
  };
  /** False when the container was recognised but its metadata was not (a VideoFacts of a WebM). */
  metadataRead: boolean;
};

/** What the bytes of an image say; width and height as displayed (EXIF orientation applied). */
export type ImageFacts = {
  kind: "image";
  bytes: number;
  format: "jpeg" | "png" | "gif" | "webp";
  width: number;
  height: number;
  /** Frames: more than one for an animated GIF or WebP. */
  pages?: number;
};

export type MediaFacts = VideoFacts | ImageFacts;
