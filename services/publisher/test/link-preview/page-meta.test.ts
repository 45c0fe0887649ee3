import { describe, expect, it } from "vitest";
import { pageMetaOf } from "../../src/link-preview/page-meta.ts";

describe("a page's card fields", () => {
  it("prefers Open Graph, decodes entities and makes the image absolute", () => {
    const html = `<!doctype html><html><head>
      <title>HTML title</title>
      <meta name="description" content="plain description">
      <meta property="og:title" content="Caf&eacute; &amp; more">
      <meta property="og:description" content="  spread
        over lines ">
      <meta property="og:image" content="/img/card.jpg">
      </head><body><meta property="og:title" content="from the body"></body></html>`;
    expect(pageMetaOf(html, "https://news.example/a/b")).toEqual({
      title: "Café & more",
      description: "spread over lines",
      imageUrl: "https://news.example/img/card.jpg",
    });
  });

  it("falls back to Twitter's tags, then the HTML title and description", () => {
    const html = `<head><title> Only a title </title><meta name="twitter:description" content="tw"></head>`;
    expect(pageMetaOf(html, "https://x.example/")).toEqual({ title: "Only a title", description: "tw" });
  });

  it("drops an image that is not http(s) and bounds long fields", () => {
    const html = `<head><meta property="og:image" content="javascript:alert(1)"><meta property="og:title" content="${"t".repeat(500)}"></head>`;
    const meta = pageMetaOf(html, "https://x.example/");
    expect(meta.imageUrl).toBeUndefined();
    expect(meta.title).toHaveLength(300);
  });

  it("reads nothing after the body starts", () => {
    const html = `<html><body><meta property="og:title" content="late"><title>late</title></body></html>`;
    expect(pageMetaOf(html, "https://x.example/")).toEqual({ title: "", description: "" });
  });
});
