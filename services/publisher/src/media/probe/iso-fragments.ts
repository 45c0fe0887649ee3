import type { ByteSource } from "./byte-source.ts";
import { type BoxHeader, BoxReader, childBox, childBoxes } from "./iso-box.ts";
import type { MovieFacts } from "./iso-moov.ts";

/** The largest movie fragment header (`moof`) read, and the most bytes of them read in all. */
export const FRAGMENT_LIMITS = { maxMoofBytes: 1024 * 1024, maxTotalBytes: 16 * 1024 * 1024 } as const;

/** One track's samples in a fragment: its decode start (`tfdt`) if given, their count and duration. */
type TrackRun = { trackId: number; start?: number; samples: number; duration: number };

/** The track runs of one `moof` (whole in `bytes` at offset 0). */
function runsOf(bytes: Buffer, moof: BoxHeader, defaults: Map<number, number>): TrackRun[] {
  const runs: TrackRun[] = [];
  for (const traf of childBoxes(bytes, moof.headerSize, moof.size).filter((box) => box.type === "traf")) {
    const tfhd = childBox(bytes, traf, "tfhd");
    if (!tfhd) continue;
    const header = new BoxReader(bytes, tfhd);
    const { flags } = header.fullHeader();
    const trackId = header.u32();
    if (flags & 0x01) header.skip(8);
    if (flags & 0x02) header.skip(4);
    const defaultDuration = flags & 0x08 ? header.u32() : (defaults.get(trackId) ?? 0);
    const run: TrackRun = { trackId, samples: 0, duration: 0 };
    const tfdt = childBox(bytes, traf, "tfdt");
    if (tfdt) {
      const reader = new BoxReader(bytes, tfdt);
      run.start = reader.sized(reader.fullHeader().version);
    }
    for (const trun of childBoxes(bytes, traf.start + traf.headerSize, traf.start + traf.size).filter(
      (box) => box.type === "trun",
    )) {
      const reader = new BoxReader(bytes, trun);
      const runFlags = reader.fullHeader().flags;
      const count = reader.u32();
      if (runFlags & 0x01) reader.skip(4);
      if (runFlags & 0x04) reader.skip(4);
      const perSample = [0x100, 0x200, 0x400, 0x800].filter((flag) => runFlags & flag).length * 4;
      run.samples += count;
      if (!(runFlags & 0x100) || perSample === 0) {
        run.duration += count * defaultDuration;
        continue;
      }
      const listed = Math.min(count, Math.floor(reader.remaining / perSample));
      for (let index = 0; index < listed; index++) {
        run.duration += reader.u32();
        reader.skip(perSample - 4);
      }
    }
    runs.push(run);
  }
  return runs;
}

async function readMoof(source: ByteSource, moof: BoxHeader): Promise<{ bytes: Buffer; header: BoxHeader }> {
  const bytes = await source.read(moof.start, moof.start + moof.size - 1);
  return { bytes, header: { ...moof, start: 0 } };
}

/** The end of a track's media in seconds, from the fragments' runs (the latest `tfdt` + run, or their sum). */
export type FragmentTiming = { endSec: number; samples: number; durationSec: number };

/**
 * How long a fragmented movie's track lasts, by range reads of its fragments: the last `moof`'s
 * decode time (`tfdt`) plus its runs when it has one, else every fragment's runs summed (within
 * {@link FRAGMENT_LIMITS}); undefined when that cannot be known.
 */
export async function fragmentTiming(
  source: ByteSource,
  moofs: readonly BoxHeader[],
  movie: MovieFacts,
  trackId: number,
): Promise<FragmentTiming | undefined> {
  const track = movie.tracks.find((candidate) => candidate.id === trackId);
  const defaults = movie.fragments?.defaultSampleDuration ?? new Map<number, number>();
  const last = moofs[moofs.length - 1];
  if (!track || track.timescale <= 0 || !last) return undefined;
  const seconds = (units: number) => units / track.timescale;
  try {
    if (last.size > FRAGMENT_LIMITS.maxMoofBytes) return undefined;
    const lastRead = await readMoof(source, last);
    const lastRun = runsOf(lastRead.bytes, lastRead.header, defaults).find((run) => run.trackId === trackId);
    if (lastRun?.start !== undefined) {
      return {
        endSec: seconds(lastRun.start + lastRun.duration),
        samples: lastRun.samples,
        durationSec: seconds(lastRun.duration),
      };
    }
    let total = 0;
    let samples = 0;
    let read = 0;
    for (const moof of moofs) {
      read += moof.size;
      if (moof.size > FRAGMENT_LIMITS.maxMoofBytes || read > FRAGMENT_LIMITS.maxTotalBytes) return undefined;
      const { bytes, header } = await readMoof(source, moof);
      for (const run of runsOf(bytes, header, defaults).filter(
        (candidate) => candidate.trackId === trackId,
      )) {
        total += run.duration;
        samples += run.samples;
      }
    }
    return { endSec: seconds(total), samples, durationSec: seconds(total) };
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/** The total duration a segment index (`sidx`) lists, in seconds; undefined when malformed. */
export async function segmentIndexSeconds(source: ByteSource, sidx: BoxHeader): Promise<number | undefined> {
  if (sidx.size > FRAGMENT_LIMITS.maxMoofBytes) return undefined;
  const bytes = await source.read(sidx.start, sidx.start + sidx.size - 1);
  try {
    const reader = new BoxReader(bytes, { ...sidx, start: 0 });
    const { version } = reader.fullHeader();
    reader.skip(4);
    const timescale = reader.u32();
    const earliest = reader.sized(version);
    reader.sized(version);
    reader.skip(2);
    const references = Math.min(reader.u16(), Math.floor(reader.remaining / 12));
    let total = earliest;
    for (let index = 0; index < references; index++) {
      reader.skip(4);
      total += reader.u32();
      reader.skip(4);
    }
    return timescale > 0 ? total / timescale : undefined;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}
