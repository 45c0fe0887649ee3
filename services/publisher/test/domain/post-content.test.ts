import { describe, expect, test } from "vitest";
import type { PostContent } from "../../src/contracts/post.ts";
import { contentProblemFor } from "../../src/domain/platform-rules.ts";
import { type PostPayload, toPostContent } from "../../src/domain/post-content.ts";

const VIDEO = "https://cdn.example.com/clip.mp4";
const image = (n: number) => `https://cdn.example.com/p${n}.jpg`;

function content(payload: PostPayload): PostContent {
  const result = toPostContent(payload);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.content;
}

function issues(payload: PostPayload) {
  const result = toPostContent(payload);
  return result.ok ? [] : result.issues;
}

describe("post payload to content", () => {
  test("defaults: YouTube private, TikTok direct public post, no brand, interactions allowed", () => {
    expect(content({ videoUrl: VIDEO })).toEqual({
      mediaItems: [{ url: VIDEO, mediaType: "VIDEO" }],
      youtube: { privacy: "private" },
      tiktok: {
        postMode: "DIRECT_POST",
        privacy: "PUBLIC_TO_EVERYONE",
        commercialType: 0,
        disableComment: false,
        disableDuet: false,
        disableStitch: false,
      },
    });
  });

  test("caption aliases are taken in the order caption, title, text, description", () => {
    expect(content({ title: "T", text: "X" }).caption).toBe("T");
    expect(content({ description: "D" }).caption).toBe("D");
    expect(content({ caption: "C", description: "D" }).caption).toBe("C");
  });

  test("hashtags are appended to the caption and kept apart too", () => {
    const result = content({ caption: "Launch day", hashtags: " #launch #demo " });
    expect(result.caption).toBe("Launch day\n\n#launch #demo");
    expect(result.hashtags).toBe("#launch #demo");
  });

  test("mediaUrls are typed by extension, query strings ignored, and merged after videoUrl without repeats", () => {
    const result = content({
      videoUrl: VIDEO,
      mediaUrls: [`${image(1)}?w=100`, "https://cdn.example.com/b.MOV", VIDEO],
      mediaItems: [{ url: image(2), mediaType: "IMAGE" }],
    });
    expect(result.mediaItems).toEqual([
      { url: VIDEO, mediaType: "VIDEO" },
      { url: `${image(1)}?w=100`, mediaType: "IMAGE" },
      { url: "https://cdn.example.com/b.MOV", mediaType: "VIDEO" },
      { url: image(2), mediaType: "IMAGE" },
    ]);
  });

  test("a mediaUrl without a known extension is refused with its index", () => {
    expect(issues({ mediaUrls: [image(1), "https://cdn.example.com/file"] })).toEqual([
      expect.objectContaining({ path: "mediaUrls.1" }),
    ]);
  });

  test("a post with neither caption nor media is refused", () => {
    expect(issues({ caption: "   " })).toEqual([expect.objectContaining({ path: "caption" })]);
  });

  test("a caption of 2200 characters passes and one more is refused, hashtags counted", () => {
    expect(issues({ caption: "é".repeat(2200) })).toEqual([]);
    expect(issues({ caption: "a".repeat(2195), hashtags: "#abc" })).toEqual([
      expect.objectContaining({ path: "caption" }),
    ]);
  });

  test("emoji count as one character each toward the caption limit", () => {
    expect(issues({ caption: "😀".repeat(2200) })).toEqual([]);
  });

  test("more than 35 media items are refused", () => {
    const items = Array.from({ length: 36 }, (_, n) => ({ url: image(n), mediaType: "IMAGE" as const }));
    expect(issues({ mediaItems: items })).toEqual([expect.objectContaining({ path: "mediaItems" })]);
    expect(issues({ mediaItems: items.slice(0, 35) })).toEqual([]);
  });

  test("youtubeTitle has at most 100 characters", () => {
    expect(issues({ videoUrl: VIDEO, youtubeTitle: "t".repeat(100) })).toEqual([]);
    expect(issues({ videoUrl: VIDEO, youtubeTitle: "t".repeat(101) })).toEqual([
      expect.objectContaining({ path: "youtubeTitle" }),
    ]);
  });

  test("tiktokPrivacy must be one of TikTok's documented levels", () => {
    expect(issues({ videoUrl: VIDEO, tiktokPrivacy: "FRIENDS" })).toEqual([
      expect.objectContaining({ path: "tiktokPrivacy" }),
    ]);
    expect(issues({ videoUrl: VIDEO, tiktokPrivacy: "SELF_ONLY" })).toEqual([]);
  });

  test("branded content (commercial type 2 or 3) cannot be private; own brand can", () => {
    for (const type of [2, 3]) {
      expect(
        issues({ videoUrl: VIDEO, tiktokCommercialType: type, tiktokPrivacy: "SELF_ONLY" }),
      ).toHaveLength(1);
    }
    expect(issues({ videoUrl: VIDEO, tiktokCommercialType: 1, tiktokPrivacy: "SELF_ONLY" })).toEqual([]);
    expect(
      issues({ videoUrl: VIDEO, tiktokCommercialType: 2, tiktokPrivacy: "FOLLOWER_OF_CREATOR" }),
    ).toEqual([]);
  });
});

describe("what each platform accepts", () => {
  const text = content({ caption: "Hello" });
  const video = content({ videoUrl: VIDEO });
  const images = (n: number) =>
    content({
      mediaItems: Array.from({ length: n }, (_, i) => ({ url: image(i), mediaType: "IMAGE" as const })),
    });
  const mixed = content({ videoUrl: VIDEO, mediaUrls: [image(1)] });

  test("YouTube takes exactly one video and nothing else", () => {
    expect(contentProblemFor("youtube", video)).toBeUndefined();
    expect(contentProblemFor("youtube", text)).toMatch(/YouTube/);
    expect(contentProblemFor("youtube", images(1))).toMatch(/YouTube/);
    expect(contentProblemFor("youtube", mixed)).toMatch(/YouTube/);
  });

  test("TikTok takes one video or a carousel of images, never text alone", () => {
    expect(contentProblemFor("tiktok", video)).toBeUndefined();
    expect(contentProblemFor("tiktok", images(35))).toBeUndefined();
    expect(contentProblemFor("tiktok", text)).toMatch(/text-only/);
    expect(contentProblemFor("tiktok", mixed)).toMatch(/carousel/);
    expect(
      contentProblemFor("tiktok", content({ mediaUrls: [VIDEO, "https://cdn.example.com/2.mp4"] })),
    ).toMatch(/one video/);
  });

  test("Bluesky takes text, up to 4 images or one video", () => {
    expect(contentProblemFor("bluesky", text)).toBeUndefined();
    expect(contentProblemFor("bluesky", images(4))).toBeUndefined();
    expect(contentProblemFor("bluesky", video)).toBeUndefined();
    expect(contentProblemFor("bluesky", images(5))).toMatch(/4 images/);
    expect(contentProblemFor("bluesky", mixed)).toMatch(/one video/);
  });

  test("Bluesky counts graphemes (300) and UTF-8 bytes (3,000), as its lexicon does", () => {
    const family = "👨‍👩‍👧‍👦"; // one grapheme, 25 bytes
    expect(contentProblemFor("bluesky", content({ caption: "a".repeat(300) }))).toBeUndefined();
    expect(contentProblemFor("bluesky", content({ caption: "a".repeat(301) }))).toMatch(/300 .*301/);
    expect(contentProblemFor("bluesky", content({ caption: family.repeat(120) }))).toBeUndefined();
    // 150 graphemes, 3,750 bytes: under the grapheme limit, over the byte limit.
    expect(contentProblemFor("bluesky", content({ caption: family.repeat(150) }))).toMatch(
      /3000 bytes.*3750/,
    );
  });

  test("TikTok counts UTF-16 units: a video caption of 2,200, a photo description of 4,000", () => {
    const emoji = "😀"; // two UTF-16 units
    const videoWith = (caption: string) => ({ ...video, caption });
    const photosWith = (caption: string) => ({ ...images(2), caption });
    expect(contentProblemFor("tiktok", videoWith(emoji.repeat(1100)))).toBeUndefined();
    expect(contentProblemFor("tiktok", videoWith(`${emoji.repeat(1100)}a`))).toMatch(
      /2200 UTF-16 units.*2201/,
    );
    expect(contentProblemFor("tiktok", photosWith(emoji.repeat(1100)))).toBeUndefined();
    expect(contentProblemFor("tiktok", photosWith(emoji.repeat(2001)))).toMatch(/4000 UTF-16 units/);
  });

  test("YouTube's description is at most 5,000 bytes, the override's or the caption's", () => {
    const withDescription = (description: string) => ({
      ...video,
      youtube: { ...video.youtube, description },
    });
    expect(contentProblemFor("youtube", withDescription("é".repeat(2500)))).toBeUndefined();
    expect(contentProblemFor("youtube", withDescription("é".repeat(2501)))).toMatch(/5000 bytes.*5002/);
    // The angle brackets YouTube refuses are removed before counting.
    expect(contentProblemFor("youtube", withDescription(`${"é".repeat(2500)}<>`))).toBeUndefined();
  });
});
