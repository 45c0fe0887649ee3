/** A satisfiable byte range, both ends inclusive. */
export type ByteRange = { start: number; end: number };

/**
 * What a `Range` header asks of an object of `size` bytes (RFC 9110 §14): `full` when there is no
 * header or it is not one single `bytes=` range (served whole, as servers may), `unsatisfiable`
 * (416) when the range starts past the end, else the range clipped to the object.
 */
export function parseRange(header: string | undefined, size: number): ByteRange | "full" | "unsatisfiable" {
  if (header === undefined) return "full";
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return "full";
  const [, first, last] = match as unknown as [string, string, string];
  if (first === "" && last === "") return "full";
  if (first === "") {
    const suffix = Number(last);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(first);
  if (start >= size) return "unsatisfiable";
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (end < start) return "full";
  return { start, end };
}
