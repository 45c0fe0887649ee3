/** How many leading bytes {@link sniffMimeType} needs. */
export const SNIFF_BYTES = 64;

const ascii = (bytes: Uint8Array, start: number, end: number) =>
  String.fromCharCode(...bytes.subarray(start, end));

const startsWith = (bytes: Uint8Array, signature: readonly number[], offset = 0) =>
  signature.every((byte, index) => bytes[offset + index] === byte);

/** ISO base media files (`ftyp` box): the major brand decides the type, as `file-type` does. */
function isoBaseMediaType(bytes: Uint8Array): string | undefined {
  if (ascii(bytes, 4, 8) !== "ftyp") return undefined;
  const brand = ascii(bytes, 8, 12).replace(/\0/g, " ").trim();
  if (brand === "qt") return "video/quicktime";
  if (brand === "avif" || brand === "avis") return "image/avif";
  if (["heic", "heix", "heim", "heis"].includes(brand)) return "image/heic";
  if (brand === "mif1" || brand === "msf1") return "image/heif";
  if (brand === "M4A") return "audio/x-m4a";
  if (brand === "M4V" || brand === "M4VH" || brand === "M4VP") return "video/x-m4v";
  if (brand.startsWith("3g2")) return "video/3gpp2";
  if (brand.startsWith("3g")) return "video/3gpp";
  return "video/mp4";
}

/**
 * The media type of a blob from its first bytes (magic numbers), as a PDS types an upload with
 * `file-type` rather than trusting the declared `Content-Type`: JPEG, PNG, GIF, WebP, AVIF/HEIC,
 * BMP, TIFF, MP4 (and QuickTime, M4V, 3GP by their `ftyp` brand), WebM/Matroska, QuickTime files
 * without `ftyp`. Undefined when the bytes match none (the PDS then keeps the declared type).
 */
export function sniffMimeType(head: Uint8Array): string | undefined {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (ascii(head, 0, 6) === "GIF87a" || ascii(head, 0, 6) === "GIF89a") return "image/gif";
  if (ascii(head, 0, 4) === "RIFF" && ascii(head, 8, 12) === "WEBP") return "image/webp";
  if (ascii(head, 0, 2) === "BM" && head.length >= 14) return "image/bmp";
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]))
    return "image/tiff";
  const isoType = isoBaseMediaType(head);
  if (isoType) return isoType;
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) {
    return ascii(head, 0, SNIFF_BYTES).includes("webm") ? "video/webm" : "video/x-matroska";
  }
  if (["moov", "mdat", "wide", "free", "skip", "pnot"].includes(ascii(head, 4, 8))) return "video/quicktime";
  return undefined;
}
