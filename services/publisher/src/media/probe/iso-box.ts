/** A box of an ISO base media file (MP4 / QuickTime): its type and where it lies. */
export type BoxHeader = {
  type: string;
  /** Offset of the box's first byte. */
  start: number;
  /** Bytes of the header (8, or 16 with a 64-bit size). */
  headerSize: number;
  /** Bytes of the whole box, header included. */
  size: number;
};

/**
 * The header of the box at `offset` of `bytes`, for a box that may run up to `end` (a size of 0
 * means "to the end"). Undefined when the header is cut off or its size is impossible.
 */
export function boxHeaderAt(bytes: Buffer, offset: number, end: number, base = 0): BoxHeader | undefined {
  if (offset + 8 > bytes.length) return undefined;
  let size = bytes.readUInt32BE(offset);
  const type = bytes.toString("latin1", offset + 4, offset + 8);
  let headerSize = 8;
  if (size === 1) {
    if (offset + 16 > bytes.length) return undefined;
    size = Number(bytes.readBigUInt64BE(offset + 8));
    headerSize = 16;
  } else if (size === 0) {
    size = end - (base + offset);
  }
  if (size < headerSize || base + offset + size > end) return undefined;
  return { type, start: base + offset, headerSize, size };
}

/**
 * The boxes directly inside `bytes[start, end)`, at most `maxBoxes` of them; stops at the first
 * malformed header (what follows it cannot be found).
 */
export function childBoxes(bytes: Buffer, start: number, end: number, maxBoxes = 1024): BoxHeader[] {
  const boxes: BoxHeader[] = [];
  let offset = start;
  while (offset + 8 <= end && boxes.length < maxBoxes) {
    const header = boxHeaderAt(bytes, offset, end);
    if (!header) break;
    boxes.push(header);
    offset += header.size;
  }
  return boxes;
}

/** The first child box of a type, or undefined. */
export const childBox = (bytes: Buffer, parent: BoxHeader, type: string, skip = 0): BoxHeader | undefined =>
  childBoxes(bytes, parent.start + parent.headerSize + skip, parent.start + parent.size).find(
    (box) => box.type === type,
  );

/** The box at a path of types under `parent` (`mdia/minf/stbl`), or undefined. */
export function boxAt(bytes: Buffer, parent: BoxHeader, path: string): BoxHeader | undefined {
  let box: BoxHeader | undefined = parent;
  for (const type of path.split("/")) {
    if (!box) return undefined;
    box = childBox(bytes, box, type);
  }
  return box;
}

/** Reads a box body's fields, refusing (RangeError) to read past the box. */
export class BoxReader {
  private offset: number;
  private readonly end: number;
  constructor(
    private readonly bytes: Buffer,
    box: BoxHeader,
  ) {
    this.offset = box.start + box.headerSize;
    this.end = box.start + box.size;
  }
  private take(length: number): number {
    const at = this.offset;
    if (at + length > this.end) throw new RangeError("The box is shorter than its fields.");
    this.offset += length;
    return at;
  }
  get remaining(): number {
    return this.end - this.offset;
  }
  skip(length: number): void {
    this.take(length);
  }
  u8(): number {
    return this.bytes.readUInt8(this.take(1));
  }
  u16(): number {
    return this.bytes.readUInt16BE(this.take(2));
  }
  u32(): number {
    return this.bytes.readUInt32BE(this.take(4));
  }
  i32(): number {
    return this.bytes.readInt32BE(this.take(4));
  }
  u64(): number {
    return Number(this.bytes.readBigUInt64BE(this.take(8)));
  }
  /** A 32- or 64-bit field, as a full box's version says. */
  sized(version: number): number {
    return version === 1 ? this.u64() : this.u32();
  }
  fourcc(): string {
    const at = this.take(4);
    return this.bytes.toString("latin1", at, at + 4);
  }
  /** Version and flags of a full box. */
  fullHeader(): { version: number; flags: number } {
    const word = this.u32();
    return { version: word >>> 24, flags: word & 0xffffff };
  }
}
