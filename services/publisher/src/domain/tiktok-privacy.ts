/**
 * TikTok's documented `privacy_level` values. The options a given creator may use come from the
 * platform (`creator_info`); without that answer any documented value is accepted here and the
 * platform has the last word when publishing.
 */
export const TIKTOK_PRIVACY_LEVELS = [
  "PUBLIC_TO_EVERYONE",
  "MUTUAL_FOLLOW_FRIENDS",
  "FOLLOWER_OF_CREATOR",
  "SELF_ONLY",
] as const;

/** Branded content (commercial type 2 or 3) may not be private: TikTok refuses SELF_ONLY for it. */
export function brandedContentIsPrivate(commercialType: number, privacy: string): boolean {
  return (commercialType === 2 || commercialType === 3) && privacy === "SELF_ONLY";
}
