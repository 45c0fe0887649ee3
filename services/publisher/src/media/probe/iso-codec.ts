import { type BoxHeader, BoxReader, childBox, childBoxes } from "./iso-box.ts";

/** Bytes of a visual sample entry's fields before its child boxes (ISO/IEC 14496-12 §12.1.3). */
const VISUAL_ENTRY_FIELDS = 78;

const hex = (value: number) => value.toString(16).padStart(2, "0");
const two = (value: number) => String(value).padStart(2, "0");

/** The sample entry's codec string as RFC 6381 names it (`avc1.64001f`), from its configuration box. */
function detailOf(bytes: Buffer, entry: BoxHeader, fourcc: string): string {
  const config = (type: string) => childBox(bytes, entry, type, VISUAL_ENTRY_FIELDS);
  const at = (box: BoxHeader, index: number) => bytes[box.start + box.headerSize + index] ?? 0;
  if (fourcc.startsWith("avc")) {
    const avcC = config("avcC");
    return avcC ? `.${hex(at(avcC, 1))}${hex(at(avcC, 2))}${hex(at(avcC, 3))}` : "";
  }
  if (fourcc === "hvc1" || fourcc === "hev1") {
    const hvcC = config("hvcC");
    if (!hvcC) return "";
    const first = at(hvcC, 1);
    const space = ["", "A", "B", "C"][first >> 6];
    let compatibility = 0;
    for (let index = 0; index < 4; index++) compatibility = (compatibility << 8) | at(hvcC, 2 + index);
    let reversed = 0;
    for (let bit = 0; bit < 32; bit++) reversed = (reversed << 1) | ((compatibility >>> bit) & 1);
    const constraints = Array.from({ length: 6 }, (_, index) => at(hvcC, 6 + index));
    while (constraints.length > 0 && constraints[constraints.length - 1] === 0) constraints.pop();
    const tier = first & 0x20 ? "H" : "L";
    return `.${space}${first & 0x1f}.${(reversed >>> 0).toString(16)}.${tier}${at(hvcC, 12)}${constraints.map((c) => `.${c.toString(16)}`).join("")}`;
  }
  if (fourcc === "vp08" || fourcc === "vp09") {
    const vpcC = config("vpcC");
    return vpcC ? `.${two(at(vpcC, 4))}.${two(at(vpcC, 5))}.${two(at(vpcC, 6) >> 4)}` : "";
  }
  if (fourcc === "av01") {
    const av1C = config("av1C");
    if (!av1C) return "";
    const profile = at(av1C, 1) >> 5;
    const flags = at(av1C, 2);
    const high = (flags & 0x40) !== 0;
    const depth = profile === 2 && high ? (flags & 0x20 ? "12" : "10") : high ? "10" : "08";
    return `.${profile}.${two(at(av1C, 1) & 0x1f)}${flags & 0x80 ? "H" : "M"}.${depth}`;
  }
  return "";
}

/** What the first sample entry of a track's `stsd` says. */
export type SampleEntryFacts = { codec: string; width?: number; height?: number };

/** The first sample entry of an `stsd` box: its codec string and, for a picture, its coded size. */
export function firstSampleEntry(
  bytes: Buffer,
  stsd: BoxHeader,
  visual: boolean,
): SampleEntryFacts | undefined {
  const [entry] = childBoxes(bytes, stsd.start + stsd.headerSize + 8, stsd.start + stsd.size, 1);
  if (!entry) return undefined;
  let fourcc = entry.type;
  if (fourcc === "encv" || fourcc === "enca") {
    const frma = childBox(bytes, childBox(bytes, entry, "sinf", VISUAL_ENTRY_FIELDS) ?? entry, "frma");
    if (frma) fourcc = new BoxReader(bytes, frma).fourcc();
  }
  if (!visual || entry.size < entry.headerSize + VISUAL_ENTRY_FIELDS) return { codec: fourcc };
  const reader = new BoxReader(bytes, entry);
  reader.skip(24);
  const width = reader.u16();
  const height = reader.u16();
  return { codec: `${fourcc}${detailOf(bytes, entry, fourcc)}`, width, height };
}
