/** Bytes enough to recognise every type below. */
export const SNIFF_BYTES = 16;

const startsWith = (head: Buffer, bytes: number[], offset = 0) =>
  bytes.every((byte, index) => head[offset + index] === byte);

/**
 * The media type of a file from its first bytes (never from a name or a header): JPEG, PNG,
 * GIF, WebP, MP4 / QuickTime (an `ftyp` box), WebM; undefined for anything else.
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
  if (head.subarray(4, 8).toString("latin1") === "ftyp") {
    return head.subarray(8, 10).toString("latin1") === "qt" ? "video/quicktime" : "video/mp4";
  }
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return "video/webm";
  return undefined;
}
