import type { ByteSource } from "./byte-source.ts";
import { type BoxHeader, boxHeaderAt, childBox } from "./iso-box.ts";

/** Limits of reading a hostile file's layout: each bounds the work and memory of one probe. */
export const ISO_LAYOUT_LIMITS = {
  /** Top-level boxes walked (a 10-minute recording in one-second fragments has 1,200). */
  maxTopLevelBoxes: 10_000,
  /** Bytes of the movie header (`moov`), read once: that of hours of video is a few MB. */
  maxMoovBytes: 16 * 1024 * 1024,
  /** Bytes read per step while walking box headers. */
  windowBytes: 4096,
} as const;

/** The top-level boxes of a file that matter to its facts. */
export type IsoLayout = {
  /** The movie header's bytes, read whole once (a box at offset 0 of them). */
  moov?: { header: BoxHeader; bytes: Buffer };
  /** Every top-level movie fragment (`moof`), in file order. */
  moofs: BoxHeader[];
  /** The first segment index (`sidx`), if any. */
  sidx?: BoxHeader;
};

/** Why a file's layout is refused, or why its end was not reached. */
export type LayoutFailure = "too-many-boxes" | "moov-too-large" | "malformed";

/**
 * Walks a file's top-level boxes by range reads of headers (never the media between them):
 * until the movie header when it is not fragmented, to the end otherwise (its fragments carry the
 * duration). Refuses more than {@link ISO_LAYOUT_LIMITS.maxTopLevelBoxes} boxes and a `moov`
 * claiming more than {@link ISO_LAYOUT_LIMITS.maxMoovBytes} or more than the file holds.
 */
export async function walkIsoLayout(source: ByteSource): Promise<IsoLayout | LayoutFailure> {
  const layout: IsoLayout = { moofs: [] };
  let window: Buffer = Buffer.alloc(0);
  let windowStart = 0;
  let position = 0;
  let boxes = 0;
  while (position + 8 <= source.size) {
    if (++boxes > ISO_LAYOUT_LIMITS.maxTopLevelBoxes) return "too-many-boxes";
    if (position < windowStart || position + 16 > windowStart + window.length) {
      window = await source.read(
        position,
        Math.min(position + ISO_LAYOUT_LIMITS.windowBytes, source.size) - 1,
      );
      windowStart = position;
    }
    const header = boxHeaderAt(window, position - windowStart, source.size, windowStart);
    if (!header) {
      // A cut-off last box (a file still being written) ends the walk; a bad one before it fails.
      return layout.moov ? layout : "malformed";
    }
    if (header.type === "moov" && !layout.moov) {
      if (header.size > ISO_LAYOUT_LIMITS.maxMoovBytes) return "moov-too-large";
      const inWindow = header.start + header.size <= windowStart + window.length;
      const bytes = inWindow
        ? window.subarray(header.start - windowStart, header.start - windowStart + header.size)
        : await source.read(header.start, header.start + header.size - 1);
      if (bytes.length !== header.size) return "malformed";
      const local = { ...header, start: 0 };
      layout.moov = { header: local, bytes };
      if (!childBox(bytes, local, "mvex")) return layout;
    } else if (header.type === "moof") {
      layout.moofs.push(header);
    } else if (header.type === "sidx" && !layout.sidx) {
      layout.sidx = header;
    }
    position = header.start + header.size;
  }
  return layout;
}
