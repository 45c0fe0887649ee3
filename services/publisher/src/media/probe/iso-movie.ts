import { createFile, type Movie, MP4BoxBuffer, type Track } from "mp4box";
import type { VideoFacts } from "../preflight/media-facts.ts";
import type { CodecFamily } from "../preflight/media-limits.ts";
import type { ByteSource } from "./byte-source.ts";

/** Bytes read per step while looking for the movie header. */
const STEP_BYTES = 256 * 1024;
/** The most bytes read to find and parse the movie header (`moov` of hours of video is a few MB). */
const MAX_READ_BYTES = 64 * 1024 * 1024;

const FAMILIES: Record<string, CodecFamily> = {
  avc1: "h264",
  avc2: "h264",
  avc3: "h264",
  avc4: "h264",
  hvc1: "h265",
  hev1: "h265",
  vp08: "vp8",
  vp09: "vp9",
  av01: "av1",
  mp4v: "mpeg4",
};

/** The codec family of a codec string (`avc1.64001f` → `h264`); the four-character code otherwise. */
export function codecFamily(codec: string): CodecFamily {
  const fourcc = codec.split(".")[0] ?? codec;
  return FAMILIES[fourcc] ?? fourcc;
}

/** True when a track's matrix turns the picture a quarter (90° or 270°): its sides swap on screen. */
function quarterTurned(track: Track): boolean {
  const matrix = Array.from(track.matrix ?? []);
  const [a = 0, b = 0, , c = 0, d = 0] = matrix;
  return a === 0 && d === 0 && b !== 0 && c !== 0;
}

/**
 * The first video track: one mp4box knows as video, or else one with a picture size in its
 * track header (a video of a codec mp4box does not know, such as H.263, is listed as metadata).
 */
function videoOf(movie: Movie): VideoFacts["video"] {
  const track =
    movie.videoTracks[0] ??
    movie.tracks.find((candidate) => candidate.track_width > 0 && candidate.track_height > 0);
  if (!track) return undefined;
  const coded = {
    width: track.video?.width || Math.round(track.track_width),
    height: track.video?.height || Math.round(track.track_height),
  };
  const seconds = track.samples_duration / track.timescale;
  const fps = track.nb_samples > 1 && seconds > 0 ? track.nb_samples / seconds : undefined;
  return {
    codec: codecFamily(track.codec),
    codecString: track.codec,
    ...(quarterTurned(track) ? { width: coded.height, height: coded.width } : coded),
    ...(fps === undefined ? {} : { fps }),
  };
}

function durationOf(movie: Movie): number | undefined {
  if (movie.timescale > 0 && movie.duration > 0) return movie.duration / movie.timescale;
  const fragments = movie.fragment_duration;
  if (fragments && fragments.den > 0 && fragments.num > 0) return fragments.num / fragments.den;
  return undefined;
}

/**
 * Reads an MP4 or QuickTime file's movie header with mp4box, by range: a step at a time from the
 * start, jumping over each media box (`mdat`) as mp4box asks, so a camera file whose `moov` comes
 * last is read in a few steps and never whole. Undefined when no movie header is found.
 */
export async function probeIsoMovie(source: ByteSource): Promise<Movie | undefined> {
  const file = createFile();
  let movie: Movie | undefined;
  let failed = false;
  file.onReady = (info) => {
    movie = info;
  };
  file.onError = () => {
    failed = true;
  };
  let position = 0;
  let read = 0;
  while (!movie && !failed && position < source.size && read < MAX_READ_BYTES) {
    const last = Math.min(position + STEP_BYTES, source.size) - 1;
    const bytes = await source.read(position, last);
    if (bytes.length === 0) break;
    read += bytes.length;
    const buffer = MP4BoxBuffer.fromArrayBuffer(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length) as ArrayBuffer,
      position,
    );
    let next: number | undefined;
    try {
      next = file.appendBuffer(buffer, last === source.size - 1);
    } catch {
      return undefined;
    }
    position = next !== undefined && next > position ? next : last + 1;
  }
  if (!movie && !failed) {
    try {
      file.flush();
    } catch {
      return undefined;
    }
  }
  return movie?.hasMoov === false ? undefined : movie;
}

/** The facts of an MP4 / QuickTime video from its movie header (none read: `metadataRead` false). */
export async function isoVideoFacts(source: ByteSource, container: "mp4" | "mov"): Promise<VideoFacts> {
  const movie = await probeIsoMovie(source);
  if (!movie) return { kind: "video", bytes: source.size, container, metadataRead: false };
  const video = videoOf(movie);
  const durationSec = durationOf(movie);
  return {
    kind: "video",
    bytes: source.size,
    container,
    metadataRead: true,
    ...(durationSec === undefined ? {} : { durationSec }),
    ...(video ? { video } : {}),
  };
}
