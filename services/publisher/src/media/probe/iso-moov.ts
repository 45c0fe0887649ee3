import { type BoxHeader, BoxReader, boxAt, childBox, childBoxes } from "./iso-box.ts";
import { firstSampleEntry } from "./iso-codec.ts";

/** The most tracks a movie may have: a video has one or two, an edited one a few more. */
export const MAX_TRACKS = 16;

/** What a track's headers say (its sample tables are summed, never listed). */
export type TrackFacts = {
  id: number;
  /** `vide`, `soun`, … from the media's `hdlr`. */
  handler: string;
  /** The track header's picture size (16.16 fixed point, rounded). */
  width: number;
  height: number;
  /** The track header's matrix turns the picture a quarter (90° or 270°). */
  quarterTurned: boolean;
  timescale: number;
  /** `mdhd`'s duration in `timescale` units; undefined when unknown. */
  duration?: number;
  /** Samples in the sample table, and their summed duration (`stts`) in `timescale` units. */
  sampleCount: number;
  samplesDuration: number;
  codec?: string;
  codedWidth?: number;
  codedHeight?: number;
};

/** What a movie header says. */
export type MovieFacts = {
  timescale: number;
  /** `mvhd`'s duration in `timescale` units; undefined when unknown. */
  duration?: number;
  /** Fragmented (`mvex`): its `mehd` duration, if any, and each track's default sample duration. */
  fragments?: { duration?: number; defaultSampleDuration: Map<number, number> };
  tracks: TrackFacts[];
};

/** A 32- or 64-bit duration of all ones means "unknown". */
const known = (value: number, version: number) =>
  value > 0 && value !== (version === 1 ? Number(0xffffffffffffffffn) : 0xffffffff) ? value : undefined;

function trackFacts(bytes: Buffer, trak: BoxHeader): TrackFacts | undefined {
  const tkhd = childBox(bytes, trak, "tkhd");
  const mdhd = boxAt(bytes, trak, "mdia/mdhd");
  if (!tkhd || !mdhd) return undefined;
  const header = new BoxReader(bytes, tkhd);
  const { version } = header.fullHeader();
  header.skip(version === 1 ? 16 : 8);
  const id = header.u32();
  header.skip(4);
  header.sized(version);
  header.skip(16);
  const matrix = Array.from({ length: 9 }, () => header.i32());
  const width = Math.round(header.u32() / 65536);
  const height = Math.round(header.u32() / 65536);
  const [a = 0, b = 0, , c = 0, d = 0] = matrix;
  const media = new BoxReader(bytes, mdhd);
  const mediaVersion = media.fullHeader().version;
  media.skip(mediaVersion === 1 ? 16 : 8);
  const timescale = media.u32();
  const duration = known(media.sized(mediaVersion), mediaVersion);
  const hdlr = boxAt(bytes, trak, "mdia/hdlr");
  let handler = "";
  if (hdlr) {
    const reader = new BoxReader(bytes, hdlr);
    reader.skip(8);
    handler = reader.fourcc();
  }
  let sampleCount = 0;
  let samplesDuration = 0;
  const stts = boxAt(bytes, trak, "mdia/minf/stbl/stts");
  if (stts) {
    const reader = new BoxReader(bytes, stts);
    reader.skip(4);
    const entries = Math.min(reader.u32(), Math.floor(reader.remaining / 8));
    for (let index = 0; index < entries; index++) {
      const count = reader.u32();
      sampleCount += count;
      samplesDuration += count * reader.u32();
    }
  }
  const stsd = boxAt(bytes, trak, "mdia/minf/stbl/stsd");
  const entry = stsd ? firstSampleEntry(bytes, stsd, handler !== "soun") : undefined;
  return {
    id,
    handler,
    width,
    height,
    quarterTurned: a === 0 && d === 0 && b !== 0 && c !== 0,
    timescale,
    ...(duration === undefined ? {} : { duration }),
    sampleCount,
    samplesDuration,
    ...(entry ? { codec: entry.codec, codedWidth: entry.width, codedHeight: entry.height } : {}),
  };
}

function fragmentsOf(bytes: Buffer, moov: BoxHeader): MovieFacts["fragments"] {
  const mvex = childBox(bytes, moov, "mvex");
  if (!mvex) return undefined;
  const defaultSampleDuration = new Map<number, number>();
  let duration: number | undefined;
  for (const box of childBoxes(bytes, mvex.start + mvex.headerSize, mvex.start + mvex.size, MAX_TRACKS + 1)) {
    const reader = new BoxReader(bytes, box);
    const { version } = reader.fullHeader();
    if (box.type === "mehd") duration = known(reader.sized(version), version);
    if (box.type === "trex") {
      const trackId = reader.u32();
      reader.skip(4);
      defaultSampleDuration.set(trackId, reader.u32());
    }
  }
  return { ...(duration === undefined ? {} : { duration }), defaultSampleDuration };
}

/**
 * The facts of a movie header (`moov`, whole in `bytes` at offset 0). Its sample tables are only
 * summed, so a header claiming millions of samples costs no more than its bytes. "too-many-tracks"
 * past {@link MAX_TRACKS}; undefined when it is malformed.
 */
export function movieFacts(bytes: Buffer, moov: BoxHeader): MovieFacts | "too-many-tracks" | undefined {
  try {
    const mvhd = childBox(bytes, moov, "mvhd");
    if (!mvhd) return undefined;
    const reader = new BoxReader(bytes, mvhd);
    const { version } = reader.fullHeader();
    reader.skip(version === 1 ? 16 : 8);
    const timescale = reader.u32();
    const duration = known(reader.sized(version), version);
    const traks = childBoxes(bytes, moov.start + moov.headerSize, moov.start + moov.size, 100_000).filter(
      (box) => box.type === "trak",
    );
    if (traks.length > MAX_TRACKS) return "too-many-tracks";
    const tracks = traks.map((trak) => trackFacts(bytes, trak)).filter((track) => track !== undefined);
    const fragments = fragmentsOf(bytes, moov);
    return {
      timescale,
      ...(duration === undefined ? {} : { duration }),
      ...(fragments ? { fragments } : {}),
      tracks,
    };
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
