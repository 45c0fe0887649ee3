import type { PostContent } from "../contracts/post.ts";
import { youtubeDescriptionOf } from "../domain/platform-rules.ts";

const withoutAngles = (text: string) => text.replace(/[<>]/g, "");

const graphemes = new Intl.Segmenter("en", { granularity: "grapheme" });

const codePoints = (text: string) => [...text].length;
const utf16Units = (text: string) => text.length;

/**
 * Cuts text to at most `max` units of `measure` (UTF-16 units by default, as TikTok counts)
 * without splitting a character as people see it: an emoji with its modifiers stays whole or goes.
 */
export function truncate(text: string, max: number, measure: (text: string) => number = utf16Units): string {
  if (measure(text) <= max) return text;
  let out = "";
  for (const { segment } of graphemes.segment(text)) {
    if (measure(out + segment) > max) break;
    out += segment;
  }
  return out;
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
 * `<` and `>` removed (YouTube refuses them), the title cut to 100 characters on a character
 * boundary, the description ≤ 5000 bytes.
 */
export function youtubeTexts(content: PostContent): { title: string; description: string } {
  const caption = content.caption ?? "";
  const firstLine = caption.split("\n")[0]?.trim() ?? "";
  // Characters as the request counted them (code points): a `youtubeTitle` that passed is sent whole.
  const title =
    truncate(withoutAngles(content.youtube.title ?? firstLine).trim(), 100, codePoints) || "Untitled";
  // Checked when the post is made (platform-rules); cut here only for posts made before that check.
  const description = truncateBytes(youtubeDescriptionOf(content), 5000);
  return { title, description };
}
