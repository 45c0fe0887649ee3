import { describe, expect, test } from "vitest";
import type { ImageFacts, VideoFacts } from "../../src/media/preflight/media-facts.ts";
import { mediaProblemFor } from "../../src/media/preflight/media-rules.ts";

const video = (
  overrides: Omit<Partial<VideoFacts>, "video"> & { video?: Partial<NonNullable<VideoFacts["video"]>> } = {},
) =>
  ({
    kind: "video",
    bytes: 5_000_000,
    container: "mp4",
    durationSec: 30,
    metadataRead: true,
    ...overrides,
    video: {
      codec: "h264",
      codecString: "avc1.64001f",
      width: 1080,
      height: 1920,
      fps: 30,
      ...overrides.video,
    },
  }) as VideoFacts;

const image = (overrides: Partial<ImageFacts> = {}): ImageFacts => ({
  kind: "image",
  bytes: 3_000_000,
  format: "jpeg",
  width: 4032,
  height: 3024,
  ...overrides,
});

describe("what each platform takes in a video", () => {
  test("a video longer than the TikTok creator's maximum names the limit and the value", () => {
    expect(
      mediaProblemFor("tiktok", video({ durationSec: 75.2 }), { maxVideoPostDurationSec: 60 }),
    ).toMatchObject({
      limit: { maxDurationSec: 60 },
      value: { durationSec: 75.2 },
    });
    expect(
      mediaProblemFor("tiktok", video({ durationSec: 59.9 }), { maxVideoPostDurationSec: 60 }),
    ).toBeUndefined();
  });

  test("without the creator's maximum, TikTok's own 10 minutes apply", () => {
    expect(mediaProblemFor("tiktok", video({ durationSec: 601 }))?.limit).toEqual({ maxDurationSec: 600 });
    expect(mediaProblemFor("tiktok", video({ durationSec: 599 }))).toBeUndefined();
  });

  test("Bluesky takes MP4 only; TikTok and YouTube take MOV and WebM too", () => {
    for (const container of ["mov", "webm"] as const) {
      expect(mediaProblemFor("bluesky", video({ container }))).toMatchObject({
        limit: { containers: ["mp4"] },
        value: { container },
      });
      expect(mediaProblemFor("tiktok", video({ container }))).toBeUndefined();
      expect(mediaProblemFor("youtube", video({ container }))).toBeUndefined();
    }
  });

  test("TikTok takes H.264, H.265, VP8 and VP9, not MPEG-4 Part 2 or AV1; YouTube takes them all", () => {
    for (const codec of ["h265", "vp8", "vp9"])
      expect(mediaProblemFor("tiktok", video({ video: { codec } }))).toBeUndefined();
    expect(
      mediaProblemFor("tiktok", video({ video: { codec: "mpeg4", codecString: "mp4v.20.9" } })),
    ).toMatchObject({
      value: { codec: "mp4v.20.9" },
    });
    expect(mediaProblemFor("tiktok", video({ video: { codec: "av1" } }))).toBeDefined();
    expect(mediaProblemFor("youtube", video({ video: { codec: "mpeg4" } }))).toBeUndefined();
  });

  test("TikTok's picture size and frame rate bounds", () => {
    expect(mediaProblemFor("tiktok", video({ video: { width: 320, height: 240 } }))?.limit).toEqual({
      minSide: 360,
      maxSide: 4096,
    });
    expect(mediaProblemFor("tiktok", video({ video: { width: 4320, height: 7680 } }))).toBeDefined();
    expect(mediaProblemFor("tiktok", video({ video: { fps: 15 } }))?.value).toEqual({ fps: 15 });
    expect(mediaProblemFor("tiktok", video({ video: { fps: 23.976 } }))).toBeUndefined();
    expect(mediaProblemFor("tiktok", video({ video: { fps: 120 } }))).toBeDefined();
  });

  test("Bluesky's 3 minutes and 100 MB", () => {
    expect(mediaProblemFor("bluesky", video({ durationSec: 181 }))?.limit).toEqual({ maxDurationSec: 180 });
    expect(mediaProblemFor("bluesky", video({ bytes: 100_000_001 }))?.limit).toEqual({
      maxBytes: 100_000_000,
    });
  });

  test("a file without a video track is refused; one whose metadata could not be read is left to the platform", () => {
    const audioOnly: VideoFacts = {
      kind: "video",
      bytes: 1000,
      container: "mp4",
      durationSec: 3,
      metadataRead: true,
    };
    expect(mediaProblemFor("youtube", audioOnly)?.value).toEqual({ videoTracks: 0 });
    expect(
      mediaProblemFor("tiktok", { kind: "video", bytes: 1000, container: "webm", metadataRead: false }),
    ).toBeUndefined();
  });
});

describe("what each platform takes in an image", () => {
  test("images are made to fit Bluesky and TikTok, so a large photo passes", () => {
    expect(mediaProblemFor("bluesky", image())).toBeUndefined();
    expect(mediaProblemFor("tiktok", image({ format: "png" }))).toBeUndefined();
  });

  test("an image too large to decode safely is refused with its pixel count", () => {
    expect(mediaProblemFor("bluesky", image({ width: 10_000, height: 10_000 }))).toMatchObject({
      limit: { maxPixels: 50_000_000 },
      value: { pixels: 100_000_000 },
    });
    expect(mediaProblemFor("tiktok", image({ bytes: 60 * 1024 * 1024 }))?.limit).toEqual({
      maxBytes: 50 * 1024 * 1024,
    });
  });

  test("a picture wider than 16,384 pixels is refused with the limit and its size, though within 50 MP", () => {
    const strip = mediaProblemFor("bluesky", image({ format: "png", width: 10_000_000, height: 5 }));
    expect(strip).toMatchObject({ limit: { maxSide: 16_384 }, value: { width: 10_000_000, height: 5 } });
    expect(strip?.message).toContain("10000000 × 5");
    expect(mediaProblemFor("tiktok", image({ width: 400, height: 16_385 }))?.limit).toEqual({
      maxSide: 16_384,
    });
    expect(mediaProblemFor("tiktok", image({ width: 1000, height: 16_384 }))).toBeUndefined();
  });

  test("an animated GIF or WebP is refused with its frame count, not posted as its first frame", () => {
    for (const platform of ["bluesky", "tiktok"] as const) {
      expect(mediaProblemFor(platform, image({ format: "gif", pages: 12 }))).toMatchObject({
        limit: { pages: 1 },
        value: { pages: 12 },
      });
    }
    expect(mediaProblemFor("bluesky", image({ format: "webp", pages: 3 }))?.message).toContain("animated");
    expect(mediaProblemFor("tiktok", image({ format: "gif", pages: 1 }))).toBeUndefined();
  });

  test("a picture longer than 20:1 is refused with its ratio; a 10:1 panorama passes", () => {
    expect(mediaProblemFor("tiktok", image({ width: 16_000, height: 799 }))).toMatchObject({
      limit: { maxAspectRatio: 20 },
      value: { aspectRatio: 20.03, width: 16_000, height: 799 },
    });
    expect(mediaProblemFor("bluesky", image({ width: 20, height: 1000 }))?.limit).toEqual({
      maxAspectRatio: 20,
    });
    expect(mediaProblemFor("bluesky", image({ width: 12_000, height: 1200 }))).toBeUndefined();
  });
});
