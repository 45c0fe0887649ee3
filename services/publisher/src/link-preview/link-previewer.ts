import { guardedRead } from "../media/guarded-fetch.ts";
import { type PageMeta, pageMetaOf } from "./page-meta.ts";
import { thumbnailOf } from "./thumbnail.ts";

/** What a link card shows: the page's title and description, and a thumbnail (JPEG ≤ 1,000,000 bytes). */
export type LinkPreview = { title: string; description: string; thumbnail?: Buffer };

/** Fetches what a link card shows (interface, so tests can swap it). */
export interface LinkPreviewer {
  /** The preview of `url`, or undefined when the page cannot be read or is not HTML. */
  preview(url: string): Promise<LinkPreview | undefined>;
}

/** A bounded GET of a URL through the SSRF guards, its body in memory. */
export type BoundedGet = (
  url: string,
  limits: { accept: string; maxBytes: number },
) => Promise<{ body: Buffer; contentType: string | null }>;

const PAGE_MAX_BYTES = 1024 * 1024;
const IMAGE_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The real previewer: the page's `<head>` read from at most 1 MiB of HTML, its image from at most
 * 10 MiB, both through `get` (the guarded fetcher: no private addresses, redirects re-checked).
 * A page that fails gives no preview; an image that fails gives a card without a thumbnail.
 */
export function createLinkPreviewer(get: BoundedGet): LinkPreviewer {
  return {
    async preview(url) {
      let meta: PageMeta;
      try {
        const page = await get(url, { accept: "text/html,application/xhtml+xml", maxBytes: PAGE_MAX_BYTES });
        if (!/^\s*(text\/html|application\/xhtml\+xml)/i.test(page.contentType ?? "")) return undefined;
        meta = pageMetaOf(page.body.toString("utf8"), url);
      } catch {
        return undefined;
      }
      if (!meta.title && !meta.description && !meta.imageUrl) return undefined;
      const thumbnail = meta.imageUrl ? await thumbnailFrom(get, meta.imageUrl) : undefined;
      return { title: meta.title, description: meta.description, ...(thumbnail ? { thumbnail } : {}) };
    },
  };
}

async function thumbnailFrom(get: BoundedGet, imageUrl: string): Promise<Buffer | undefined> {
  try {
    const image = await get(imageUrl, { accept: "image/*", maxBytes: IMAGE_MAX_BYTES });
    return await thumbnailOf(image.body);
  } catch {
    return undefined;
  }
}

/** The real previewer on the guarded fetcher: 5 s to connect, 15 s in all, 5 redirects, each re-checked. */
export function createGuardedLinkPreviewer(trustedOrigins: readonly string[]): LinkPreviewer {
  return createLinkPreviewer((url, limits) =>
    guardedRead(url, {
      ...limits,
      trustedOrigins,
      connectTimeoutMs: 5_000,
      totalTimeoutMs: 15_000,
      maxRedirects: 5,
    }),
  );
}
