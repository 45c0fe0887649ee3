/** The snippet and status a videos.insert carries, once checked. */
export type VideoMetadata = {
  title: string;
  description: string;
  tags: string[];
  categoryId: string;
  privacyStatus: "private" | "public" | "unlisted";
  publishAt: string | null;
  selfDeclaredMadeForKids: boolean | null;
};

/** A refusal of the metadata, with YouTube's reason. */
export type MetadataProblem = { reason: string; message: string };

/** YouTube's assignable video categories (US region). */
const CATEGORIES = new Set([
  "1",
  "2",
  "10",
  "15",
  "17",
  "19",
  "20",
  "22",
  "23",
  "24",
  "25",
  "26",
  "27",
  "28",
  "29",
]);
const PRIVACY = new Set(["private", "public", "unlisted"]);
const ANGLE_BRACKETS = /[<>]/;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Length of the tags as YouTube counts it: commas between tags, quotes around tags with spaces. */
function tagsLength(tags: string[]): number {
  const each = tags.map((tag) => tag.length + (tag.includes(" ") ? 2 : 0));
  return each.reduce((sum, length) => sum + length, 0) + Math.max(0, tags.length - 1);
}

/**
 * Checks a video resource as videos.insert does: `snippet.title` 1–100 characters without `<`
 * or `>`; `snippet.description` at most 5000 bytes without them; tags at most 500 characters;
 * a known `categoryId`; `status.privacyStatus` private, public or unlisted (default private);
 * `status.publishAt` only for private videos and in the future.
 */
export function checkVideoMetadata(body: unknown, now: Date): VideoMetadata | MetadataProblem {
  if (!isObject(body)) return { reason: "parseError", message: "Parse Error" };
  const snippet = isObject(body.snippet) ? body.snippet : {};
  const status = isObject(body.status) ? body.status : {};
  const title = snippet.title;
  if (
    typeof title !== "string" ||
    title.trim() === "" ||
    [...title].length > 100 ||
    ANGLE_BRACKETS.test(title)
  ) {
    return {
      reason: "invalidTitle",
      message: "The request metadata specifies an invalid or empty video title.",
    };
  }
  const description = snippet.description ?? "";
  if (
    typeof description !== "string" ||
    Buffer.byteLength(description, "utf8") > 5000 ||
    ANGLE_BRACKETS.test(description)
  ) {
    return {
      reason: "invalidDescription",
      message: "The request metadata specifies an invalid video description.",
    };
  }
  const tags = snippet.tags ?? [];
  if (!Array.isArray(tags) || !tags.every((tag) => typeof tag === "string") || tagsLength(tags) > 500) {
    return { reason: "invalidTags", message: "The request metadata specifies invalid video keywords." };
  }
  const categoryId = snippet.categoryId ?? "22";
  if (typeof categoryId !== "string" || !CATEGORIES.has(categoryId)) {
    return {
      reason: "invalidCategoryId",
      message: "The snippet.categoryId property specifies an invalid category ID.",
    };
  }
  const privacyStatus = status.privacyStatus ?? "private";
  if (typeof privacyStatus !== "string" || !PRIVACY.has(privacyStatus)) {
    return {
      reason: "invalidPrivacyStatus",
      message: "Invalid privacy status. Use private, public or unlisted.",
    };
  }
  const publishAt = status.publishAt ?? null;
  if (publishAt !== null) {
    const at = typeof publishAt === "string" ? Date.parse(publishAt) : Number.NaN;
    if (privacyStatus !== "private" || Number.isNaN(at) || at <= now.getTime()) {
      return {
        reason: "invalidPublishAt",
        message: "The request metadata specifies an invalid scheduled publishing time.",
      };
    }
  }
  const madeForKids = status.selfDeclaredMadeForKids ?? null;
  if (madeForKids !== null && typeof madeForKids !== "boolean") {
    return { reason: "invalidValue", message: "Invalid value for status.selfDeclaredMadeForKids." };
  }
  return {
    title,
    description,
    tags: tags as string[],
    categoryId,
    privacyStatus: privacyStatus as VideoMetadata["privacyStatus"],
    publishAt: publishAt as string | null,
    selfDeclaredMadeForKids: madeForKids,
  };
}

export function isMetadataProblem(value: VideoMetadata | MetadataProblem): value is MetadataProblem {
  return "reason" in value;
}
