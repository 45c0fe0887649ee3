/** A parsed `Content-Range` request header. */
export type ContentRange =
  | { kind: "bytes"; first: number; last: number; total: number | null }
  | { kind: "probe"; total: number | null };

const BYTES = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15}|\*)$/;
const PROBE = /^bytes \*\/(\d{1,15}|\*)$/;

/**
 * Parses `bytes a-b/total`, `bytes a-b/*` (total not known yet) and the status query
 * `bytes *\/total`; undefined for anything else (including a last byte before the first,
 * or a range past the total).
 */
export function parseContentRange(header: string | undefined): ContentRange | undefined {
  if (header === undefined) return undefined;
  const value = header.trim();
  const probe = PROBE.exec(value);
  if (probe) return { kind: "probe", total: probe[1] === "*" ? null : Number(probe[1]) };
  const range = BYTES.exec(value);
  if (!range) return undefined;
  const first = Number(range[1]);
  const last = Number(range[2]);
  const total = range[3] === "*" ? null : Number(range[3]);
  if (last < first || (total !== null && last >= total)) return undefined;
  return { kind: "bytes", first, last, total };
}
