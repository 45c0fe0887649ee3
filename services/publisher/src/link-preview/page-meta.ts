import { Parser } from "htmlparser2";

/** What a page says about itself for a link card: Open Graph first, then Twitter's tags, then HTML's own. */
export type PageMeta = { title: string; description: string; imageUrl?: string };

const TITLE_KEYS = ["og:title", "twitter:title"];
const DESCRIPTION_KEYS = ["og:description", "twitter:description", "description"];
const IMAGE_KEYS = ["og:image:secure_url", "og:image", "og:image:url", "twitter:image", "twitter:image:src"];

const clean = (text: string | undefined, max: number) =>
  (text ?? "").replace(/\s+/g, " ").trim().slice(0, max);

/**
 * Reads the `<head>` of an HTML page (`html`, as fetched) for a card's title, description and
 * image; the image URL is made absolute against `pageUrl` and kept only when it is http(s).
 */
export function pageMetaOf(html: string, pageUrl: string): PageMeta {
  const meta = new Map<string, string>();
  let title = "";
  let inTitle = false;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === "title") inTitle = true;
        if (name === "body") parser.pause();
        if (name !== "meta") return;
        const key = (attributes.property ?? attributes.name ?? "").toLowerCase();
        const content = attributes.content;
        if (key && content !== undefined && !meta.has(key)) meta.set(key, content);
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === "title") inTitle = false;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  const first = (keys: string[]) => keys.map((key) => meta.get(key)).find((value) => value?.trim());
  return {
    title: clean(first(TITLE_KEYS) ?? title, 300),
    description: clean(first(DESCRIPTION_KEYS), 1000),
    ...imageOf(first(IMAGE_KEYS), pageUrl),
  };
}

function imageOf(raw: string | undefined, pageUrl: string): { imageUrl?: string } {
  if (!raw?.trim()) return {};
  try {
    const url = new URL(raw.trim(), pageUrl);
    return url.protocol === "http:" || url.protocol === "https:" ? { imageUrl: url.href } : {};
  } catch {
    return {};
  }
}
