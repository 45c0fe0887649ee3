/**
 * Tiny ISO BMFF (MP4 / QuickTime) files built box by box, for tests: a movie header with the given
 * duration, one video track of the given codec and size (and, optionally, an audio track), and an
 * `mdat` of one byte per sample. Valid enough for a demuxer to read the metadata; nothing decodes
 * the samples.
 */

const u8 = (value: number) => Buffer.from([value & 255]);
const u16 = (value: number) => {
  const bytes = Buffer.alloc(2);
  bytes.writeUInt16BE(value);
  return bytes;
};
const u32 = (value: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(value >>> 0);
  return bytes;
};
const ascii = (text: string) => Buffer.from(text, "latin1");
const zeros = (length: number) => Buffer.alloc(length);

function box(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(8 + body.length), ascii(type), body]);
}

const fullBox = (type: string, version: number, flags: number, ...parts: Buffer[]) =>
  box(type, u8(version), u8(flags >> 16), u16(flags & 0xffff), ...parts);

/** The identity matrix of mvhd and tkhd. */
const MATRIX = Buffer.concat([0x00010000, 0, 0, 0, 0x00010000, 0, 0, 0, 0x40000000].map(u32));

export type Mp4Options = {
  /** `isom`, `mp42`, … ; `qt  ` makes a QuickTime (.mov) file. */
  brand?: string;
  /** The video sample entry: `avc1` (H.264, with an avcC), `hvc1`, `vp09`, `av01`, `mp4v`, … */
  codec?: string;
  width?: number;
  height?: number;
  durationSec: number;
  fps?: number;
  /** Put `moov` after `mdat` (as cameras write it): a reader must skip the media to find it. */
  moovLast?: boolean;
  /** Leave the video track out (an audio-only file). */
  audioOnly?: boolean;
  /** Extra bytes in `mdat` beyond the samples, to make a large file. */
  padding?: number;
};

/** An H.264 decoder configuration (High profile, level 3.1) with a token SPS and PPS. */
const AVCC = box(
  "avcC",
  u8(1),
  u8(0x64),
  u8(0),
  u8(0x1f),
  u8(0xff),
  u8(0xe1),
  u16(4),
  Buffer.from([0x67, 0x64, 0x00, 0x1f]),
  u8(1),
  u16(2),
  Buffer.from([0x68, 0xee]),
);

function visualSampleEntry(codec: string, width: number, height: number): Buffer {
  return box(
    codec,
    zeros(6),
    u16(1),
    zeros(16),
    u16(width),
    u16(height),
    u32(0x00480000),
    u32(0x00480000),
    zeros(4),
    u16(1),
    zeros(32),
    u16(0x0018),
    u16(0xffff),
    ...(codec === "avc1" ? [AVCC] : []),
  );
}

function audioSampleEntry(): Buffer {
  return box("mp4a", zeros(6), u16(1), zeros(8), u16(2), u16(16), zeros(4), u32(48000 << 16));
}

function track(options: {
  id: number;
  kind: "vide" | "soun";
  entry: Buffer;
  timescale: number;
  duration: number;
  samples: number;
  sampleDelta: number;
  chunkOffset: number;
  width: number;
  height: number;
}): Buffer {
  const { id, kind, timescale, duration, samples } = options;
  const tkhd = fullBox(
    "tkhd",
    0,
    3,
    u32(0),
    u32(0),
    u32(id),
    zeros(4),
    u32(duration),
    zeros(8),
    u16(0),
    u16(0),
    u16(kind === "soun" ? 0x0100 : 0),
    zeros(2),
    MATRIX,
    u32(kind === "vide" ? options.width << 16 : 0),
    u32(kind === "vide" ? options.height << 16 : 0),
  );
  const mdhd = fullBox("mdhd", 0, 0, u32(0), u32(0), u32(timescale), u32(duration), u16(0x55c4), u16(0));
  const hdlr = fullBox(
    "hdlr",
    0,
    0,
    zeros(4),
    ascii(kind),
    zeros(12),
    ascii(kind === "vide" ? "VideoHandler\0" : "SoundHandler\0"),
  );
  const header = kind === "vide" ? fullBox("vmhd", 0, 1, zeros(8)) : fullBox("smhd", 0, 0, zeros(4));
  const dinf = box("dinf", fullBox("dref", 0, 0, u32(1), fullBox("url ", 0, 1)));
  const stbl = box(
    "stbl",
    fullBox("stsd", 0, 0, u32(1), options.entry),
    fullBox("stts", 0, 0, u32(1), u32(samples), u32(options.sampleDelta)),
    fullBox("stsc", 0, 0, u32(1), u32(1), u32(samples), u32(1)),
    fullBox("stsz", 0, 0, u32(1), u32(samples)),
    fullBox("stco", 0, 0, u32(1), u32(options.chunkOffset)),
  );
  return box("trak", tkhd, box("mdia", mdhd, hdlr, box("minf", header, dinf, stbl)));
}

/** A small MP4 (or MOV) file with the given duration, codec and picture size. */
export function buildMp4(options: Mp4Options): Buffer {
  const brand = options.brand ?? "isom";
  const codec = options.codec ?? "avc1";
  const width = options.width ?? 720;
  const height = options.height ?? 1280;
  const fps = options.fps ?? 30;
  const timescale = 1000;
  const duration = Math.round(options.durationSec * timescale);
  const samples = Math.max(1, Math.round(options.durationSec * fps));
  const ftyp = box("ftyp", ascii(brand.padEnd(4, " ")), u32(512), ascii(brand.padEnd(4, " ")), ascii("mp41"));
  const mdatBody = zeros(samples + (options.audioOnly ? 0 : 0) + (options.padding ?? 0));
  const moovFor = (chunkOffset: number) =>
    box(
      "moov",
      fullBox(
        "mvhd",
        0,
        0,
        u32(0),
        u32(0),
        u32(timescale),
        u32(duration),
        u32(0x00010000),
        u16(0x0100),
        zeros(10),
        MATRIX,
        zeros(24),
        u32(3),
      ),
      options.audioOnly
        ? track({
            id: 1,
            kind: "soun",
            entry: audioSampleEntry(),
            timescale,
            duration,
            samples,
            sampleDelta: Math.max(1, Math.round(duration / samples)),
            chunkOffset,
            width,
            height,
          })
        : track({
            id: 1,
            kind: "vide",
            entry: visualSampleEntry(codec, width, height),
            timescale,
            duration,
            samples,
            sampleDelta: Math.max(1, Math.round(duration / samples)),
            chunkOffset,
            width,
            height,
          }),
    );
  const mdat = box("mdat", mdatBody);
  if (options.moovLast) {
    return Buffer.concat([ftyp, mdat, moovFor(ftyp.length + 8)]);
  }
  const moovLength = moovFor(0).length;
  return Buffer.concat([ftyp, moovFor(ftyp.length + moovLength + 8), mdat]);
}

/** A WebM file's first bytes (an EBML header naming the `webm` doc type): enough to sniff it. */
export function webmHead(): Buffer {
  return Buffer.concat([
    Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01]),
    Buffer.from([0x42, 0xf2, 0x81, 0x04, 0x42, 0xf3, 0x81, 0x08, 0x42, 0x82, 0x84]),
    ascii("webm"),
    Buffer.from([0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02]),
    zeros(64),
  ]);
}
