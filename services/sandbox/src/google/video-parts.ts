import { PlatformFailure } from "../kit/failure.ts";

/**
 * The `part` names of a video resource, as the videos.list reference lists them
 * (developers.google.com/youtube/v3/docs/videos/list); videos.insert also takes `brandPartner`
 * (developers.google.com/youtube/v3/docs/videos/insert).
 */
export const LIST_PARTS: ReadonlySet<string> = new Set([
  "contentDetails",
  "fileDetails",
  "id",
  "liveStreamingDetails",
  "localizations",
  "paidProductPlacementDetails",
  "player",
  "processingDetails",
  "recordingDetails",
  "snippet",
  "statistics",
  "status",
  "suggestions",
  "topicDetails",
]);
export const INSERT_PARTS: ReadonlySet<string> = new Set([...LIST_PARTS, "brandPartner"]);

/**
 * The parts a request names, as Google checks them: `part` is required (400 `required`
 * "Required parameter: part") and every name must be one the method knows (400 `unknownPart`
 * with the name quoted, domain `youtube.part`). The parameter is comma-separated and may repeat.
 */
export function checkParts(values: string[], known: ReadonlySet<string>): string[] {
  const parts = values
    .flatMap((value) => value.split(","))
    .map((item) => item.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new PlatformFailure(400, "required", "Required parameter: part");
  const unknown = parts.find((item) => !known.has(item));
  if (unknown !== undefined) throw new PlatformFailure(400, "unknownPart", `'${unknown.slice(0, 64)}'`);
  return [...new Set(parts)];
}
