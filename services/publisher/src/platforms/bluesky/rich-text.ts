import { type AppBskyRichtextFacet, RichText } from "@atproto/api";

export type Facet = AppBskyRichtextFacet.Main;

/** The text of a post and its facets (links, mentions, hashtags), as `app.bsky.feed.post` holds them. */
export type BlueskyRichText = { text: string; facets: Facet[] };

const MENTION = "app.bsky.richtext.facet#mention";
const LINK = "app.bsky.richtext.facet#link";

/**
 * The facets of a post's text, found the way Bluesky's own clients find them (`RichText` of
 * `@atproto/api`: byte offsets in UTF-8), with each mention's handle resolved to its DID by
 * `resolveHandle`. A mention whose handle does not resolve is left as plain text (the library
 * would keep it with an empty DID, which the lexicon refuses); a resolver that cannot answer now
 * throws, and the post waits for a retry rather than lose the mention.
 */
export async function richTextOf(
  text: string,
  resolveHandle: (handle: string) => Promise<string | undefined>,
): Promise<BlueskyRichText> {
  const rich = new RichText({ text });
  rich.detectFacetsWithoutResolution();
  const found = rich.facets ?? [];
  const handles = new Set(found.flatMap((facet) => mentionOf(facet)?.did ?? []));
  const dids = new Map(
    await Promise.all([...handles].map(async (handle) => [handle, await resolveHandle(handle)] as const)),
  );
  const facets: Facet[] = [];
  for (const facet of found) {
    const mention = mentionOf(facet);
    if (mention) {
      const did = dids.get(mention.did);
      if (!did) continue;
      mention.did = did;
    }
    facets.push(facet);
  }
  return { text: rich.text, facets };
}

const mentionOf = (facet: Facet) =>
  facet.features.find((feature) => feature.$type === MENTION) as { did: string } | undefined;

/** The first link of the text, which a post without media shows as a card. */
export function firstLink(facets: readonly Facet[]): string | undefined {
  for (const facet of facets) {
    const link = facet.features.find((feature) => feature.$type === LINK) as { uri: string } | undefined;
    if (link) return link.uri;
  }
  return undefined;
}
