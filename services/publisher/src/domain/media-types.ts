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

/**
 * The content types an upload may have, each with its storage extension: the ones publishing can
 * publish (what `sniffMediaType` recognises). Anything else, SVG or HTML above all, is refused,
 * so nothing active is ever served from this service's origin.
 */
export const UPLOAD_CONTENT_TYPES: Readonly<Record<string, string>> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
  "video/mp4": "mp4",
  "video/quicktime": "mov",
  "video/webm": "webm",
};

/** Whether an upload may have this content type (parameters such as `; codecs=…` ignored). */
export function isUploadContentType(contentType: string): boolean {
  return Object.hasOwn(UPLOAD_CONTENT_TYPES, baseType(contentType));
}

const baseType = (contentType: string) => contentType.split(";")[0]?.trim().toLowerCase() ?? "";

/**
 * The content type and storage extension of an upload: the declared content type when it is
 * `video/*` or `image/*`, else the one the file name's extension implies; the extension from the
 * file name when it names the same type, else the type's own. Undefined unless the type is one of
 * {@link UPLOAD_CONTENT_TYPES} (a declared `image/svg+xml` is refused, whatever the name says).
 */
export function describeUpload(
  filename: string | undefined,
  declaredType: string | undefined,
): { contentType: string; extension: string } | undefined {
  const fromName = filename === undefined ? undefined : extensionOf(filename);
  const known = fromName === undefined ? undefined : EXTENSIONS[fromName];
  const declared = declaredType === undefined ? undefined : baseType(declaredType);
  const contentType = declared && /^(video|image)\//.test(declared) ? declared : known?.contentType;
  if (contentType === undefined || !isUploadContentType(contentType)) return undefined;
  if (known?.contentType === contentType) return { contentType, extension: fromName as string };
  return { contentType, extension: UPLOAD_CONTENT_TYPES[contentType] as string };
}
