import { describe, expect, it } from "vitest";
import { firstLink, richTextOf } from "../../src/platforms/bluesky/rich-text.ts";

const utf8 = (text: string) => Buffer.from(text, "utf8");
/** The substring a facet points at, cut by its UTF-8 byte offsets as Bluesky's clients cut it. */
const spanOf = (text: string, index: { byteStart: number; byteEnd: number }) =>
  utf8(text).subarray(index.byteStart, index.byteEnd).toString("utf8");

const DIDS: Record<string, string> = { "alice.bsky.test": "did:plc:alice0000000000000000000" };
const resolve = async (handle: string) => DIDS[handle];

describe("Bluesky rich text", () => {
  it("finds links, mentions and hashtags at UTF-8 byte offsets, after multi-byte text", async () => {
    const text = "Día 1 🎉 see https://example.com/a?b=c and @alice.bsky.test #twin #Check";
    const { facets } = await richTextOf(text, resolve);
    const spans = facets.map((facet) => [facet.features[0]?.$type, spanOf(text, facet.index)]);
    expect(spans).toEqual([
      ["app.bsky.richtext.facet#link", "https://example.com/a?b=c"],
      ["app.bsky.richtext.facet#mention", "@alice.bsky.test"],
      ["app.bsky.richtext.facet#tag", "#twin"],
      ["app.bsky.richtext.facet#tag", "#Check"],
    ]);
    expect(facets[0]?.features[0]).toMatchObject({ uri: "https://example.com/a?b=c" });
    expect(facets[1]?.features[0]).toMatchObject({ did: DIDS["alice.bsky.test"] });
    expect(facets[3]?.features[0]).toMatchObject({ tag: "Check" });
  });

  it("leaves a mention whose handle does not resolve as plain text, never with an empty DID", async () => {
    const { facets } = await richTextOf("hi @nobody.bsky.test and @alice.bsky.test", resolve);
    expect(facets).toHaveLength(1);
    expect(facets[0]?.features[0]).toMatchObject({ did: DIDS["alice.bsky.test"] });
  });

  it("resolves each handle once; a resolver that cannot answer now fails the attempt, not the mention", async () => {
    const asked: string[] = [];
    const { facets } = await richTextOf(
      "@alice.bsky.test @alice.bsky.test @nobody.bsky.test",
      async (handle) => {
        asked.push(handle);
        return DIDS[handle];
      },
    );
    expect(asked.sort()).toEqual(["alice.bsky.test", "nobody.bsky.test"]);
    expect(facets).toHaveLength(2);
    const down = richTextOf("@alice.bsky.test", async () => {
      throw new Error("the PDS is down");
    });
    await expect(down).rejects.toThrow("the PDS is down");
  });

  it("gives no facets to plain text, and the first link for a card", async () => {
    expect((await richTextOf("just words", resolve)).facets).toEqual([]);
    const { facets } = await richTextOf("#tag then https://one.example/x and https://two.example", resolve);
    expect(firstLink(facets)).toBe("https://one.example/x");
    expect(firstLink([])).toBeUndefined();
  });
});
