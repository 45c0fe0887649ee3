import { createHash } from "node:crypto";

/** A seeded pseudo-random generator (mulberry32): the same seed gives the same sequence. */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** 64 hex digits derived from a label: stable ids that do not depend on generation order. */
export function hashHex(label: string): string {
  return createHash("sha256").update(`markets-seed:${label}`).digest("hex");
}

const TOKEN_SPAN = 9n * 10n ** 76n;
const TOKEN_FLOOR = 10n ** 76n;

/** A 77-digit decimal token id derived from a label, shaped like a CLOB token id. */
export function tokenIdFor(label: string): string {
  return ((BigInt(`0x${hashHex(label)}`) % TOKEN_SPAN) + TOKEN_FLOOR).toString();
}

/** A URL slug from a title ("Fed decision in March?" → "fed-decision-in-march"). */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
