import type { TikTokCreator } from "../demo.ts";

export const PRIVACY_LEVELS = [
  "PUBLIC_TO_EVERYONE",
  "MUTUAL_FOLLOW_FRIENDS",
  "FOLLOWER_OF_CREATOR",
  "SELF_ONLY",
];

/** A checked `post_info`. */
export type PostInfo = {
  title: string;
  description: string | null;
  privacyLevel: string;
  disableComment: boolean;
  disableDuet: boolean;
  disableStitch: boolean;
  brandContentToggle: boolean;
  brandOrganicToggle: boolean;
  isAigc: boolean;
  autoAddMusic: boolean;
  videoCoverTimestampMs: number | null;
};

/** A refusal of the post info: TikTok's error code and message. */
export type PostInfoProblem = { code: string; message: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function optionalBoolean(info: Record<string, unknown>, name: string): boolean | PostInfoProblem {
  const value = info[name] ?? false;
  return typeof value === "boolean"
    ? value
    : { code: "invalid_params", message: `post_info.${name} must be a boolean.` };
}

/**
 * Checks a direct post's `post_info` against the creator's current options, as TikTok does:
 * `privacy_level` must be one of the creator's `privacy_level_options`
 * (`privacy_level_option_mismatch`), branded content cannot be `SELF_ONLY`, a video title is at
 * most 2200 UTF-16 units, a photo title at most 90 characters and its description at most 4000.
 */
export function checkPostInfo(
  value: unknown,
  creator: TikTokCreator,
  media: "VIDEO" | "PHOTO",
): PostInfo | PostInfoProblem {
  if (!isObject(value))
    return { code: "invalid_params", message: "post_info is required for a direct post." };
  const title = value.title ?? "";
  const titleLimit = media === "VIDEO" ? 2200 : 90;
  const titleLength =
    typeof title === "string" ? (media === "VIDEO" ? title.length : [...title].length) : Number.NaN;
  if (typeof title !== "string" || !(titleLength <= titleLimit)) {
    return {
      code: "invalid_params",
      message: `post_info.title must be a string of at most ${titleLimit} characters.`,
    };
  }
  const description = value.description ?? null;
  if (
    description !== null &&
    (media === "VIDEO" || typeof description !== "string" || [...description].length > 4000)
  ) {
    return {
      code: "invalid_params",
      message: "post_info.description is for photo posts, at most 4000 characters.",
    };
  }
  const privacyLevel = value.privacy_level;
  if (typeof privacyLevel !== "string" || !PRIVACY_LEVELS.includes(privacyLevel)) {
    return {
      code: "invalid_params",
      message: `post_info.privacy_level must be one of ${PRIVACY_LEVELS.join(", ")}.`,
    };
  }
  if (!creator.privacyLevelOptions.includes(privacyLevel)) {
    return {
      code: "privacy_level_option_mismatch",
      message: `privacy_level ${privacyLevel} is not among the creator's options: ${creator.privacyLevelOptions.join(", ")}.`,
    };
  }
  const flags: Record<string, boolean> = {};
  for (const name of [
    "disable_comment",
    "disable_duet",
    "disable_stitch",
    "brand_content_toggle",
    "brand_organic_toggle",
    "is_aigc",
    "auto_add_music",
  ]) {
    const flag = optionalBoolean(value, name);
    if (typeof flag !== "boolean") return flag;
    flags[name] = flag;
  }
  if (flags.brand_content_toggle && privacyLevel === "SELF_ONLY") {
    return {
      code: "invalid_params",
      message: "Branded content cannot be posted with privacy_level SELF_ONLY.",
    };
  }
  const cover = value.video_cover_timestamp_ms ?? null;
  if (cover !== null && (typeof cover !== "number" || !Number.isSafeInteger(cover) || cover < 0)) {
    return {
      code: "invalid_params",
      message: "post_info.video_cover_timestamp_ms must be a non-negative integer.",
    };
  }
  return {
    title,
    description: description as string | null,
    privacyLevel,
    disableComment: flags.disable_comment === true,
    disableDuet: flags.disable_duet === true,
    disableStitch: flags.disable_stitch === true,
    brandContentToggle: flags.brand_content_toggle === true,
    brandOrganicToggle: flags.brand_organic_toggle === true,
    isAigc: flags.is_aigc === true,
    autoAddMusic: flags.auto_add_music === true,
    videoCoverTimestampMs: cover as number | null,
  };
}

export function isPostInfoProblem(value: PostInfo | PostInfoProblem): value is PostInfoProblem {
  return "code" in value;
}
