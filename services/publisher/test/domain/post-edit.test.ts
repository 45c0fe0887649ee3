import { describe, expect, test } from "vitest";
import type { PostContent } from "../../src/contracts/post.ts";
import { toPostContent } from "../../src/domain/post-content.ts";
import { editedParts, editedPayload, payloadOfContent } from "../../src/domain/post-edit.ts";

function contentOf(payload: Parameters<typeof toPostContent>[0]): PostContent {
  const result = toPostContent(payload);
  if (!result.ok) throw new Error(JSON.stringify(result.issues));
  return result.content;
}

const stored = contentOf({
  caption: "  Hello  ",
  hashtags: "#a #b",
  mediaItems: [{ url: "https://cdn.example.com/a.jpg", mediaType: "IMAGE" }],
  youtubeTitle: "Title",
  youtubeDescription: "Desc",
  youtubePrivacy: "unlisted",
  tiktokPrivacy: "SELF_ONLY",
  tiktokDisableDuet: true,
});

describe("a stored post's content as a payload", () => {
  test("makes the same content again: caption apart from its hashtags, settings kept", () => {
    for (const payload of [
      { caption: "Hello", hashtags: "#a" },
      { hashtags: "#only" },
      { caption: "No tags" },
      { mediaItems: [{ url: "https://cdn.example.com/v.mp4", mediaType: "VIDEO" as const }] },
    ]) {
      const content = contentOf(payload);
      expect(contentOf(payloadOfContent(content))).toEqual(content);
    }
    expect(contentOf(payloadOfContent(stored))).toEqual(stored);
  });
});

describe("an edit applied to a post's payload", () => {
  const post = { content: stored, connectionIds: ["conn_1", "conn_2"] };

  test("an alias replaces the caption's text and keeps the hashtags; hashtags alone keep the text", () => {
    expect(contentOf(editedPayload(post, { text: "New" })).caption).toBe("New\n\n#a #b");
    expect(contentOf(editedPayload(post, { hashtags: "#c" })).caption).toBe("Hello\n\n#c");
    expect(contentOf(editedPayload(post, { title: "T", hashtags: "" })).caption).toBe("T");
  });

  test("media fields replace all the media; the targets stay unless named", () => {
    const edited = editedPayload(post, { videoUrl: "https://cdn.example.com/v.mp4" });
    expect(contentOf(edited).mediaItems).toEqual([
      { url: "https://cdn.example.com/v.mp4", mediaType: "VIDEO" },
    ]);
    expect(edited.connectionIds).toEqual(["conn_1", "conn_2"]);
    const retargeted = editedPayload(post, { groupIds: ["grp_1"] });
    expect(retargeted.connectionIds).toBeUndefined();
    expect(retargeted.groupIds).toEqual(["grp_1"]);
  });

  test("what it does not name stays as it was: YouTube and TikTok settings, media, caption", () => {
    const content = contentOf(editedPayload(post, { connectionIds: ["conn_3"] }));
    expect(content).toEqual(stored);
  });

  test("its parts are named in a fixed order, none for an empty edit", () => {
    expect(editedParts({})).toEqual([]);
    expect(editedParts({ connectionIds: [], hashtags: "#x", scheduledFor: "2026-01-01T00:00:00Z" })).toEqual([
      "scheduledFor",
      "caption",
      "targets",
    ]);
    expect(editedParts({ mediaUrls: [] })).toEqual(["media"]);
  });
});
