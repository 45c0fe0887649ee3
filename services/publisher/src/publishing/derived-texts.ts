import type { Platform, PostContent } from "../contracts/post.ts";
import { TEXT_LIMITS, youtubeDescriptionOf } from "../domain/platform-rules.ts";
import { truncate, youtubeTexts } from "./post-texts.ts";

/**
 * A text a platform is sent other than as it was given (the dry run's answer; publishing makes
 * the same texts): a title taken from the caption's first line (cut to the platform's length on a
 * character boundary when longer), or characters the platform refuses taken out.
 */
export type TextTransform =
  | {
      kind: "title_derived";
      field: "title";
      /** The title as it would be sent. */
      value: string;
      maxLength: number;
      /** How `maxLength` counts: code points (YouTube, as the request counts) or UTF-16 units (TikTok). */
      unit: "characters" | "utf16_units";
      /** Whether the caption's first line was longer and was cut. */
      cut: boolean;
    }
  | { kind: "characters_removed"; field: "title" | "description"; characters: string[] };

const ANGLES = ["<", ">"];
const hasAngles = (text: string) => /[<>]/.test(text);
const codePoints = (text: string) => [...text].length;
const firstLineOf = (caption: string | undefined) => (caption ?? "").split("\n")[0]?.trim() ?? "";

/** YouTube: a title from the caption unless `youtubeTitle` was given, and `<` `>` taken out of both texts. */
function youtubeTransforms(content: PostContent): TextTransform[] {
  const transforms: TextTransform[] = [];
  const { title } = youtubeTexts(content);
  if (content.youtube.title === undefined) {
    const line = firstLineOf(content.caption).replace(/[<>]/g, "").trim();
    transforms.push({
      kind: "title_derived",
      field: "title",
      value: title,
      maxLength: 100,
      unit: "characters",
      cut: codePoints(line) > 100,
    });
  } else if (hasAngles(content.youtube.title)) {
    transforms.push({ kind: "characters_removed", field: "title", characters: ANGLES });
  }
  const description = content.youtube.description ?? content.caption ?? "";
  if (youtubeDescriptionOf(content) !== description) {
    transforms.push({ kind: "characters_removed", field: "description", characters: ANGLES });
  }
  return transforms;
}

/** TikTok: a photo post's title is the caption's first line, cut to 90 UTF-16 units (a video's caption goes whole). */
function tiktokTransforms(content: PostContent): TextTransform[] {
  if (!content.mediaItems.some((item) => item.mediaType === "IMAGE")) return [];
  const line = (content.caption ?? "").split("\n")[0] ?? "";
  const max = TEXT_LIMITS.tiktokPhotoTitleUnits;
  return [
    {
      kind: "title_derived",
      field: "title",
      value: truncate(line, max),
      maxLength: max,
      unit: "utf16_units",
      cut: line.length > max,
    },
  ];
}

/**
 * The texts `platform` would be sent other than as given, for content its rules accept (the
 * limits on what is sent whole are checked when the post is made, and refused rather than cut).
 * Bluesky is sent the caption as it is.
 */
export function textTransformsFor(platform: Platform, content: PostContent): TextTransform[] {
  if (platform === "youtube") return youtubeTransforms(content);
  if (platform === "tiktok") return tiktokTransforms(content);
  return [];
}
