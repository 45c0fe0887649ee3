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

/** The box of a type at its first occurrence in `file` (its bytes, header included). */
function firstBox(file: Buffer, type: string): Buffer {
  const at = file.indexOf(type) - 4;
  return file.subarray(at, at + file.readUInt32BE(at));
}

/** An MP4 whose sample tables (`stts`, `stsc`, `stsz`) claim `count` samples in a file of a few hundred bytes. */
export function withClaimedSamples(count: number): Buffer {
  const file = Buffer.from(buildMp4({ durationSec: 1, fps: 1 }));
  for (const [type, offset] of [
    ["stts", 12],
    ["stsz", 12],
    ["stsc", 16],
  ] as const) {
    file.writeUInt32BE(count >>> 0, file.indexOf(type) + offset);
  }
  return file;
}

/** An MP4 whose movie header comes after `count` empty 8-byte `free` boxes. */
export function afterTinyBoxes(count: number): Buffer {
  const file = buildMp4({ durationSec: 3 });
  const ftyp = firstBox(file, "ftyp");
  const frees = Buffer.alloc(8 * count);
  for (let index = 0; index < count; index++) frees.write("\0\0\0\x08free", index * 8, "latin1");
  const moov = Buffer.from(firstBox(file, "moov"));
  moov.writeUInt32BE(moov.readUInt32BE(moov.indexOf("stco") + 12) + frees.length, moov.indexOf("stco") + 12);
  return Buffer.concat([ftyp, frees, file.subarray(ftyp.length)]);
}

/** An MP4 whose movie header holds `count` copies of its video track. */
export function withTracks(count: number): Buffer {
  const file = buildMp4({ durationSec: 5 });
  const ftyp = firstBox(file, "ftyp");
  const moov = firstBox(file, "moov");
  return Buffer.concat([
    ftyp,
    box("moov", firstBox(moov, "mvhd"), ...Array.from({ length: count }, () => firstBox(moov, "trak"))),
  ]);
}

/** An MP4 whose movie header (`moov`) is padded to `bytes` with a `free` box inside it. */
export function withLargeMoov(bytes: number): Buffer {
  const file = buildMp4({ durationSec: 5 });
  const ftyp = firstBox(file, "ftyp");
  const moov = firstBox(file, "moov");
  const padding = bytes - moov.length - 8;
  return Buffer.concat([ftyp, box("moov", moov.subarray(8), box("free", zeros(padding)))]);
}

export type FragmentedOptions = {
  /** One-second fragments (`moof` + `mdat`), 25 frames each at a timescale of 1000. */
  seconds: number;
  /** Each fragment's decode time (`tfdt`); without it the durations must be summed. */
  tfdt?: boolean;
  /** A movie extends header (`mehd`) claiming this many seconds. */
  mehdSec?: number;
  /** Bytes of each fragment's `mdat` (25, one a frame, unless told). */
  mdatBytes?: number;
};

/**
 * A fragmented MP4 as recorders write it: a movie header with empty sample tables and a duration
 * of 0, a `trex` default sample duration of 40 (25 fps at 1000), then one fragment per second.
 */
export function buildFragmentedMp4(options: FragmentedOptions): Buffer {
  const plain = buildMp4({ durationSec: 1, fps: 1 });
  const ftyp = firstBox(plain, "ftyp");
  const moov = Buffer.from(firstBox(plain, "moov"));
  const zero = (type: string, offset: number) => moov.writeUInt32BE(0, moov.indexOf(type) + offset);
  zero("mvhd", 20);
  zero("tkhd", 24);
  zero("mdhd", 20);
  zero("stts", 8);
  zero("stsc", 8);
  zero("stsz", 12);
  zero("stco", 8);
  const mehd = options.mehdSec === undefined ? [] : [fullBox("mehd", 0, 0, u32(options.mehdSec * 1000))];
  const mvex = box("mvex", ...mehd, fullBox("trex", 0, 0, u32(1), u32(1), u32(40), u32(1), u32(0)));
  const parts = [ftyp, box("moov", moov.subarray(8), mvex)];
  for (let second = 0; second < options.seconds; second++) {
    const traf = box(
      "traf",
      fullBox("tfhd", 0, 0x020000, u32(1)),
      ...(options.tfdt === false ? [] : [fullBox("tfdt", 0, 0, u32(second * 1000))]),
      fullBox("trun", 0, 0x000001, u32(25), u32(0)),
    );
    parts.push(
      box("moof", fullBox("mfhd", 0, 0, u32(second + 1)), traf),
      box("mdat", zeros(options.mdatBytes ?? 25)),
    );
  }
  return Buffer.concat(parts);
}
