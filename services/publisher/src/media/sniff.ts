/** Bytes enough to recognise every type below (an `ftyp` box's brands, a WebM's EBML DocType). */
export const SNIFF_BYTES = 64;

const startsWith = (head: Buffer, bytes: number[], offset = 0) =>
  bytes.every((byte, index) => head[offset + index] === byte);

const EBML_MAGIC = [0x1a, 0x45, 0xdf, 0xa3];
const EBML_DOC_TYPE = 0x4282;

/** An EBML variable-length integer at `offset`: its value (marker kept for IDs) and length. */
function ebmlVint(
  head: Buffer,
  offset: number,
  keepMarker: boolean,
): { value: number; length: number } | undefined {
  const first = head[offset];
  if (first === undefined || first === 0) return undefined;
  const length = Math.clz32(first) - 23;
  if (length > 8 || offset + length > head.length) return undefined;
  let value = keepMarker ? first : first & (0xff >> length);
  for (let index = 1; index < length; index++) value = value * 256 + (head[offset + index] ?? 0);
  return { value, length };
}

/** The DocType of an EBML header (`webm`, `matroska`), when the head holds it. */
export function ebmlDocType(head: Buffer): string | undefined {
  if (!startsWith(head, EBML_MAGIC)) return undefined;
  const headerSize = ebmlVint(head, 4, false);
  if (!headerSize) return undefined;
  let offset = 4 + headerSize.length;
  while (offset < head.length) {
    const id = ebmlVint(head, offset, true);
    const size = id && ebmlVint(head, offset + id.length, false);
    if (!id || !size) return undefined;
    const data = offset + id.length + size.length;
    if (id.value === EBML_DOC_TYPE) {
      return data + size.value <= head.length
        ? head.toString("latin1", data, data + size.value).replace(/\0+$/, "")
        : undefined;
    }
    offset = data + size.value;
  }
  return undefined;
}

/** The brands of an `ftyp` box at the start of the head: major first, then the compatible ones. */
function ftypBrands(head: Buffer): string[] | undefined {
  if (head.toString("latin1", 4, 8) !== "ftyp" || head.length < 12) return undefined;
  const end = Math.min(head.readUInt32BE(0), head.length);
  const brands = [head.toString("latin1", 8, 12)];
  for (let offset = 16; offset + 4 <= end; offset += 4)
    brands.push(head.toString("latin1", offset, offset + 4));
  return brands;
}

/** ISO BMFF files that are not MP4 / QuickTime videos, by major brand: what they are. */
const OTHER_ISO_FILES: Record<string, string> = {
  heic: "a HEIC image",
  heix: "a HEIC image",
  heim: "a HEIC image",
  heis: "a HEIC image",
  hevc: "a HEIC image sequence",
  hevx: "a HEIC image sequence",
  avif: "an AVIF image",
  avis: "an AVIF image sequence",
  "M4A ": "an MPEG-4 audio file (M4A)",
  "M4B ": "an MPEG-4 audio book (M4B)",
  "M4P ": "an MPEG-4 audio file (M4P)",
  "F4A ": "an MPEG-4 audio file (F4A)",
  "crx ": "a Canon raw photo (CR3)",
};

/**
 * What an ISO BMFF or EBML file is when it is not a video this service takes (a HEIC or AVIF
 * image, an M4A audio file, a 3GP video, a Matroska video…), named for an answer; undefined for
 * anything else, a video it takes included.
 */
export function describeOtherMedia(head: Buffer): string | undefined {
  const brands = ftypBrands(head);
  if (brands) {
    const [major = ""] = brands;
    if (OTHER_ISO_FILES[major]) return OTHER_ISO_FILES[major];
    if (major === "mif1" || major === "msf1") {
      return brands.some((brand) => brand === "avif" || brand === "avis") ? "an AVIF image" : "a HEIF image";
    }
    if (major.startsWith("3gp") || major.startsWith("3g2")) return "a 3GP video";
    return undefined;
  }
  const docType = ebmlDocType(head);
  if (docType === "matroska") return "a Matroska (MKV) video";
  if (startsWith(head, EBML_MAGIC) && docType !== "webm") return "an EBML file that is not WebM";
  return undefined;
}

/**
 * The media type of a file from its first bytes (never from a name or a header): JPEG, PNG,
 * GIF, WebP, MP4 / QuickTime (an `ftyp` box whose brand is not an image's, audio's, 3GP's or a raw
 * photo's: see {@link describeOtherMedia}), WebM (an EBML header of DocType `webm`); undefined for
 * anything else. HEIC and AVIF are not taken: no platform here takes them as they are, and sharp's
 * prebuilt binaries decode AVIF but not HEIC, so they are refused rather than half supported.
 */
export function sniffMediaType(head: Buffer): string | undefined {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (
    head.subarray(0, 6).toString("latin1") === "GIF87a" ||
    head.subarray(0, 6).toString("latin1") === "GIF89a"
  )
    return "image/gif";
  if (head.subarray(0, 4).toString("latin1") === "RIFF" && head.subarray(8, 12).toString("latin1") === "WEBP")
    return "image/webp";
  const brands = ftypBrands(head);
  if (brands) {
    if (describeOtherMedia(head)) return undefined;
    return brands[0]?.startsWith("qt") ? "video/quicktime" : "video/mp4";
  }
  if (ebmlDocType(head) === "webm") return "video/webm";
  return undefined;
}
