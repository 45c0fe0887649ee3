/** The limits of a post payload (DECISIONS.md, "Media publishing service"): one place, used everywhere. */
export const POST_LIMITS = {
  connectionIds: 20,
  mediaItems: 35,
  captionCharacters: 2200,
  youtubeTitleCharacters: 100,
  blueskyGraphemes: 300,
  blueskyImages: 4,
  tiktokImages: 35,
  urlCharacters: 2048,
} as const;

/** Characters as people count them in limits: Unicode code points, not UTF-16 units. */
export const characterCount = (text: string): number => [...text].length;

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

/** User-perceived characters (an emoji with modifiers is one), as Bluesky counts its 300. */
export function graphemeCount(text: string): number {
  let count = 0;
  for (const _ of graphemes.segment(text)) count += 1;
  return count;
}
