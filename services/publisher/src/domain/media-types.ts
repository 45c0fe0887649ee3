import type { MediaItem } from "../contracts/post.ts";

/** File extensions whose media type is known, and the content type each is stored with. */
const EXTENSIONS: Record<string, { mediaType: MediaItem["mediaType"]; contentType: string }> = {
  mp4: { mediaType: "VIDEO", contentType: "video/mp4" },
  m4v: { mediaType: "VIDEO", contentType: "video/x-m4v" },
  mov: { mediaType: "VIDEO", contentType: "video/quicktime" },
  webm: { mediaType: "VIDEO", contentType: "video/webm" },
  mkv: { mediaType: "VIDEO", contentType: "video/x-matroska" },
  avi: { mediaType: "VIDEO", contentType: "video/x-msvideo" },
  mpeg: { mediaType: "VIDEO", contentType: "video/mpeg" },
  jpg: { mediaType: "IMAGE", contentType: "image/jpeg" },
  jpeg: { mediaType: "IMAGE", contentType: "image/jpeg" },
  png: { mediaType: "IMAGE", contentType: "image/png" },
  gif: { mediaType: "IMAGE", contentType: "image/gif" },
  webp: { mediaType: "IMAGE", contentType: "image/webp" },
  heic: { mediaType: "IMAGE", contentType: "image/heic" },
};

/** The lower-case extension of a file name or URL path (`clip.MP4` → `mp4`), or undefined. */
export function extensionOf(name: string): string | undefined {
  const match = /\.([A-Za-z0-9]{1,8})$/.exec(name);
  return match?.[1]?.toLowerCase();
}

/** The media type a URL's path ends in (query and fragment ignored), or undefined when unknown. */
export function mediaTypeOfUrl(url: string): MediaItem["mediaType"] | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const extension = extensionOf(path);
  return extension === undefined ? undefined : EXTENSIONS[extension]?.mediaType;
}

/** Whether a content type is one the service stores: `video/*` or `image/*`. */
export function isMediaContentType(contentType: string): boolean {
  return /^(video|image)\/[a-z0-9][a-z0-9.+-]{0,126}$/i.test(contentType);
}

/**
 * The content type and storage extension of an upload: the declared content type when it is
 * media, else the one the file name's extension implies; the extension from the file name when
 * known, else from the content type. Undefined when neither says it is a video or an image.
 */
export function describeUpload(
  filename: string | undefined,
  declaredType: string | undefined,
): { contentType: string; extension: string } | undefined {
  const fromName = filename === undefined ? undefined : extensionOf(filename);
  const known = fromName === undefined ? undefined : EXTENSIONS[fromName];
  const declared = declaredType?.split(";")[0]?.trim().toLowerCase();
  const contentType = declared && isMediaContentType(declared) ? declared : known?.contentType;
  if (contentType === undefined) return undefined;
  if (known) return { contentType, extension: fromName as string };
  const byType = Object.entries(EXTENSIONS).find(([, entry]) => entry.contentType === contentType);
  return { contentType, extension: byType?.[0] ?? (contentType.startsWith("video/") ? "bin" : "img") };
}
