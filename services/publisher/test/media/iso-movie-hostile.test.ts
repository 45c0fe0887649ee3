import { describe, expect, test } from "vitest";
import { mediaProblemFor } from "../../src/media/preflight/media-rules.ts";
import type { ByteSource } from "../../src/media/probe/byte-source.ts";
import { ISO_LAYOUT_LIMITS } from "../../src/media/probe/iso-layout.ts";
import { MAX_TRACKS } from "../../src/media/probe/iso-moov.ts";
import { isoVideoFacts } from "../../src/media/probe/iso-movie.ts";
import {
  afterTinyBoxes,
  buildFragmentedMp4,
  buildMp4,
  withClaimedSamples,
  withLargeMoov,
  withTracks,
} from "./mp4-fixture.ts";

/** A file read by range, counting the reads and the bytes read. */
function counted(bytes: Buffer, size = bytes.length): ByteSource & { bytesRead: number; reads: number } {
  const source = {
    size,
    bytesRead: 0,
    reads: 0,
    async read(start: number, end: number) {
      source.reads += 1;
      const last = Math.min(end, size - 1);
      const slice = Buffer.alloc(Math.max(0, last - start + 1));
      bytes.copy(slice, 0, start, Math.min(bytes.length, last + 1));
      source.bytesRead += slice.length;
      return slice;
    },
  };
  return source;
}

const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value);
  return bytes;
};

describe("hostile MP4 files are read in bounded work", () => {
  test("sample tables claiming 4 billion samples are summed, never listed", async () => {
    const file = withClaimedSamples(0xffffffff);
    expect(file.length).toBeLessThan(1024);
    const source = counted(file);
    const heapBefore = process.memoryUsage().heapUsed;
    const facts = await isoVideoFacts(source, "mp4");
    expect(facts).toMatchObject({ metadataRead: true, video: { codec: "h264", width: 720, height: 1280 } });
    expect(facts.durationSec).toBeCloseTo(1, 3);
    expect(source.bytesRead).toBeLessThanOrEqual(file.length);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });

  test("more top-level boxes than the cap are refused after reading only their headers", async () => {
    const source = counted(afterTinyBoxes(ISO_LAYOUT_LIMITS.maxTopLevelBoxes + 10));
    expect(await isoVideoFacts(source, "mp4")).toMatchObject({ metadataRead: false });
    expect(source.bytesRead).toBeLessThan(ISO_LAYOUT_LIMITS.maxTopLevelBoxes * 8 + 64 * 1024);
    const within = counted(afterTinyBoxes(ISO_LAYOUT_LIMITS.maxTopLevelBoxes - 10));
    const facts = await isoVideoFacts(within, "mp4");
    expect(facts).toMatchObject({ metadataRead: true, video: { codec: "h264" } });
    expect(facts.durationSec).toBeCloseTo(3, 3);
  });

  test(`a movie of more than ${MAX_TRACKS} tracks is refused; ${MAX_TRACKS} are read`, async () => {
    expect(await isoVideoFacts(counted(withTracks(MAX_TRACKS + 1)), "mp4")).toMatchObject({
      metadataRead: false,
    });
    expect(await isoVideoFacts(counted(withTracks(20_000)), "mp4")).toMatchObject({ metadataRead: false });
    expect(await isoVideoFacts(counted(withTracks(MAX_TRACKS)), "mp4")).toMatchObject({
      metadataRead: true,
      video: { codec: "h264" },
    });
  });

  test("a movie header is read in one read, whatever its size under the cap", async () => {
    const source = counted(withLargeMoov(10 * 1024 * 1024));
    const facts = await isoVideoFacts(source, "mp4");
    expect(facts).toMatchObject({ metadataRead: true, video: { codec: "h264" } });
    expect(source.reads).toBeLessThanOrEqual(2);
    expect(source.bytesRead).toBeLessThan(10 * 1024 * 1024 + 16 * 1024);
  });

  test("a movie header claiming more than the cap, or more than the file holds, is refused unread", async () => {
    const ftyp = buildMp4({ durationSec: 1 }).subarray(0, 24);
    const huge = Buffer.concat([ftyp, u32(ISO_LAYOUT_LIMITS.maxMoovBytes + 1), Buffer.from("moov")]);
    const overCap = counted(huge, 200 * 1024 * 1024);
    expect(await isoVideoFacts(overCap, "mp4")).toMatchObject({ metadataRead: false });
    expect(overCap.bytesRead).toBeLessThan(64 * 1024);
    const pastEnd = counted(Buffer.concat([ftyp, u32(1024 * 1024), Buffer.from("moov"), Buffer.alloc(100)]));
    expect(await isoVideoFacts(pastEnd, "mp4")).toMatchObject({ metadataRead: false });
    expect(pastEnd.bytesRead).toBeLessThan(64 * 1024);
  });
});

describe("the duration of a fragmented or odd MP4", () => {
  test("a 10-minute fragmented MP4 without mehd lasts 10 minutes (the last fragment's tfdt + run)", async () => {
    const source = counted(buildFragmentedMp4({ seconds: 600, mdatBytes: 20_000 }));
    const facts = await isoVideoFacts(source, "mp4");
    expect(source.bytesRead).toBeLessThan(600 * ISO_LAYOUT_LIMITS.windowBytes + 64 * 1024);
    expect(facts.durationSec).toBeCloseTo(600, 3);
    expect(facts.video?.fps).toBeCloseTo(25, 3);
    expect(mediaProblemFor("tiktok", facts, { maxVideoPostDurationSec: 60 })).toMatchObject({
      limit: { maxDurationSec: 60 },
    });
  });

  test("fragments without tfdt are summed; a mehd that understates is outweighed by them", async () => {
    const summed = await isoVideoFacts(counted(buildFragmentedMp4({ seconds: 120, tfdt: false })), "mp4");
    expect(summed.durationSec).toBeCloseTo(120, 3);
    const understated = await isoVideoFacts(counted(buildFragmentedMp4({ seconds: 120, mehdSec: 1 })), "mp4");
    expect(understated.durationSec).toBeCloseTo(120, 3);
  });

  test("an mvhd timescale of 0 falls back to the track's own duration", async () => {
    const file = Buffer.from(buildMp4({ durationSec: 75.2 }));
    file.writeUInt32BE(0, file.indexOf("mvhd") + 16);
    const facts = await isoVideoFacts(counted(file), "mp4");
    expect(facts.durationSec).toBeCloseTo(75.2, 3);
  });

  test("a movie whose duration cannot be read at all is refused where a platform limits duration", async () => {
    const file = Buffer.from(buildMp4({ durationSec: 5 }));
    file.writeUInt32BE(0, file.indexOf("mvhd") + 16);
    file.writeUInt32BE(0, file.indexOf("mdhd") + 16);
    file.writeUInt32BE(0, file.indexOf("stts") + 16);
    const facts = await isoVideoFacts(counted(file), "mp4");
    expect(facts).toMatchObject({ metadataRead: true });
    expect(facts.durationSec).toBeUndefined();
    const problem = mediaProblemFor("tiktok", facts);
    expect(problem?.message).toMatch(/duration cannot be read/);
    expect(problem?.limit).toEqual({ maxDurationSec: 600 });
  });
});
