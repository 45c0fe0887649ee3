import { describe, expect, test } from "vitest";
import { textTransformsFor } from "../../src/publishing/derived-texts.ts";
import { youtubeTexts } from "../../src/publishing/post-texts.ts";
import { photoPostInfo } from "../../src/publishing/tiktok-post-info.ts";
import { content } from "../publishing-support.ts";

const video = [{ url: "https://cdn.example.com/v.mp4", mediaType: "VIDEO" as const }];
const photo = [{ url: "https://cdn.example.com/p.jpg", mediaType: "IMAGE" as const }];
const creator = {
  username: "creator",
  privacyLevelOptions: ["PUBLIC_TO_EVERYONE"],
  commentDisabled: false,
  duetDisabled: false,
  stitchDisabled: false,
  maxVideoPostDurationSec: 600,
};

describe("the texts a platform is sent other than as given, as publishing makes them", () => {
  test("YouTube: the derived title is the one publishing sends, cut to 100 characters on a character boundary", () => {
    const emoji = "👩‍👩‍👧‍👦";
    const post = content({ caption: `${"x".repeat(99)}${emoji} more\nsecond line`, mediaItems: video });
    const [title] = textTransformsFor("youtube", post);
    expect(title).toEqual({
      kind: "title_derived",
      field: "title",
      value: youtubeTexts(post).title,
      maxLength: 100,
      unit: "characters",
      cut: true,
    });
    expect(title?.kind === "title_derived" && title.value).toBe("x".repeat(99));
  });

  test("YouTube: a given title is not derived, and < > taken out of it and of the description are said", () => {
    const post = content({
      caption: "plain",
      mediaItems: video,
      youtube: { privacy: "private", title: "A <title>", description: "no angles" },
    });
    expect(textTransformsFor("youtube", post)).toEqual([
      { kind: "characters_removed", field: "title", characters: ["<", ">"] },
    ]);
    const short = content({ caption: "Short <b>", mediaItems: video });
    expect(textTransformsFor("youtube", short)).toEqual([
      {
        kind: "title_derived",
        field: "title",
        value: "Short b",
        maxLength: 100,
        unit: "characters",
        cut: false,
      },
      { kind: "characters_removed", field: "description", characters: ["<", ">"] },
    ]);
  });

  test("TikTok: a photo post's title is its caption's first line within 90 UTF-16 units; a video's caption goes whole", () => {
    const post = content({ caption: `${"y".repeat(95)}\nrest`, mediaItems: photo });
    expect(textTransformsFor("tiktok", post)).toEqual([
      {
        kind: "title_derived",
        field: "title",
        value: photoPostInfo(post, creator).title,
        maxLength: 90,
        unit: "utf16_units",
        cut: true,
      },
    ]);
    expect(textTransformsFor("tiktok", content({ caption: "z".repeat(95), mediaItems: video }))).toEqual([]);
  });

  test("Bluesky is sent the caption as it is", () => {
    expect(textTransformsFor("bluesky", content({ caption: "<anything>\nat all" }))).toEqual([]);
  });
});
