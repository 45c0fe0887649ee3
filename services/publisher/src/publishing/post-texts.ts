import type { PostContent } from "../contracts/post.ts";

const withoutAngles = (text: string) => text.replace(/[<>]/g, "");

/** Cuts text to at most `max` UTF-16 units without splitting a surrogate pair. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** Cuts text to at most `maxBytes` UTF-8 bytes on a character boundary. */
export function truncateBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let out = "";
  for (const char of text) {
    if (Buffer.byteLength(out + char) > maxBytes) break;
    out += char;
  }
  return out;
}

/**
 * YouTube's title and description: the overrides, else the caption (title: its first line);
 * `<` and `>` removed (YouTube refuses them), title ≤ 100 characters, description ≤ 5000 bytes.
 */
export function youtubeTexts(content: PostContent): { title: string; description: string } {
  const caption = content.caption ?? "";
  const firstLine = caption.split("\n")[0]?.trim() ?? "";
  const title = truncate(withoutAngles(content.youtube.title ?? firstLine).trim(), 100) || "Untitled";
  const description = truncateBytes(withoutAngles(content.youtube.description ?? caption), 5000);
  return { title, description };
}
