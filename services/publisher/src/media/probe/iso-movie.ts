import type { VideoFacts } from "../preflight/media-facts.ts";
import type { CodecFamily } from "../preflight/media-limits.ts";
import type { ByteSource } from "./byte-source.ts";
import { fragmentTiming, segmentIndexSeconds } from "./iso-fragments.ts";
import { type IsoLayout, walkIsoLayout } from "./iso-layout.ts";
import { type MovieFacts, movieFacts, type TrackFacts } from "./iso-moov.ts";

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

/** A movie read from a file: its header's facts and the file's top-level layout. */
export type IsoMovie = { movie: MovieFacts; layout: IsoLayout };

/** Why a file's movie was not read. */
export type IsoMovieFailure =
  | "no-moov"
  | "too-many-boxes"
  | "moov-too-large"
  | "too-many-tracks"
  | "malformed";

/**
 * Reads an MP4 or QuickTime file's movie header by range: the top-level box headers are walked
 * (jumping over the media), the `moov` is read once whole and parsed here, its sample tables
 * summed rather than listed. Every step is bounded (`ISO_LAYOUT_LIMITS`, `MAX_TRACKS`), so a
 * hostile file costs at most a few tens of MB of reads and the memory of its `moov`.
 */
export async function readIsoMovie(source: ByteSource): Promise<IsoMovie | IsoMovieFailure> {
  const layout = await walkIsoLayout(source);
  if (typeof layout === "string") return layout;
  if (!layout.moov) return "no-moov";
  const movie = movieFacts(layout.moov.bytes, layout.moov.header);
  if (movie === undefined) return "malformed";
  if (movie === "too-many-tracks") return movie;
  return { movie, layout };
}

/** The first video track: one whose handler is `vide`, or else one with a picture size in its header. */
const videoTrackOf = (movie: MovieFacts): TrackFacts | undefined =>
  movie.tracks.find((track) => track.handler === "vide") ??
  movie.tracks.find((track) => track.handler !== "soun" && track.width > 0 && track.height > 0);

const seconds = (units: number | undefined, timescale: number) =>
  units !== undefined && units > 0 && timescale > 0 ? units / timescale : undefined;

/** The longest of a movie's tracks, in seconds, from their media headers or sample tables. */
function longestTrackSec(movie: MovieFacts): number | undefined {
  const lengths = movie.tracks.flatMap((track) => [
    seconds(track.duration, track.timescale) ?? 0,
    seconds(track.samplesDuration, track.timescale) ?? 0,
  ]);
  const longest = Math.max(0, ...lengths);
  return longest > 0 ? longest : undefined;
}

type Timing = { durationSec?: number; fps?: number };

/**
 * How long the movie lasts and its frame rate. A plain movie: `mvhd` (the presentation, edits
 * applied), else its longest track. A fragmented one: the longest of what `mvhd`, `mehd`, the
 * segment index and the fragments themselves say (a header can understate; the fragments cannot).
 */
async function timingOf(
  source: ByteSource,
  { movie, layout }: IsoMovie,
  video?: TrackFacts,
): Promise<Timing> {
  const fps = (samples: number, durationSec: number | undefined) =>
    samples > 1 && durationSec !== undefined && durationSec > 0 ? samples / durationSec : undefined;
  const tableFps = video
    ? fps(video.sampleCount, seconds(video.samplesDuration, video.timescale))
    : undefined;
  const headerSec = seconds(movie.duration, movie.timescale);
  if (!movie.fragments) {
    const durationSec = headerSec ?? longestTrackSec(movie);
    return { ...(durationSec === undefined ? {} : { durationSec }), ...(tableFps ? { fps: tableFps } : {}) };
  }
  const track = video ?? movie.tracks[0];
  const fragments =
    track && layout.moofs.length > 0
      ? await fragmentTiming(source, layout.moofs, movie, track.id)
      : undefined;
  const indexSec = layout.sidx ? await segmentIndexSeconds(source, layout.sidx) : undefined;
  const claims = [
    headerSec,
    seconds(movie.fragments.duration, movie.timescale),
    indexSec,
    fragments?.endSec,
    longestTrackSec(movie),
  ].filter((value): value is number => value !== undefined && value > 0);
  // Fragments that could not be read leave the duration unknown unless the index or `mehd` says it.
  const unreadFragments =
    layout.moofs.length > 0 && !fragments && indexSec === undefined && !movie.fragments.duration;
  const durationSec = unreadFragments || claims.length === 0 ? undefined : Math.max(...claims);
  const fragmentFps = fragments ? fps(fragments.samples, fragments.durationSec) : undefined;
  const frameRate = tableFps ?? fragmentFps;
  return { ...(durationSec === undefined ? {} : { durationSec }), ...(frameRate ? { fps: frameRate } : {}) };
}

/** The facts of an MP4 / QuickTime video from its movie header (none read: `metadataRead` false). */
export async function isoVideoFacts(source: ByteSource, container: "mp4" | "mov"): Promise<VideoFacts> {
  const read = await readIsoMovie(source);
  if (typeof read === "string") return { kind: "video", bytes: source.size, container, metadataRead: false };
  const track = videoTrackOf(read.movie);
  const { durationSec, fps } = await timingOf(source, read, track);
  const coded = track && {
    width: track.codedWidth || track.width,
    height: track.codedHeight || track.height,
  };
  const video: VideoFacts["video"] =
    track && coded
      ? {
          codec: codecFamily(track.codec ?? ""),
          codecString: track.codec ?? "",
          ...(track.quarterTurned ? { width: coded.height, height: coded.width } : coded),
          ...(fps === undefined ? {} : { fps }),
        }
      : undefined;
  return {
    kind: "video",
    bytes: source.size,
    container,
    metadataRead: true,
    ...(durationSec === undefined ? {} : { durationSec }),
    ...(video ? { video } : {}),
  };
}
