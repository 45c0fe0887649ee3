import { describe, expect, test } from "vitest";
import { checkChunkPlan, chunkRange, lastChunkSize } from "../../src/tiktok/chunk-plan.ts";

const MB = 1024 * 1024;
const plan = (video_size: number, chunk_size: number, total_chunk_count: number) =>
  checkChunkPlan({ video_size, chunk_size, total_chunk_count });

describe("TikTok's chunk arithmetic", () => {
  test("a 50 MB file in 10 MB chunks is 5 chunks", () => {
    expect(plan(50 * MB, 10 * MB, 5)).toEqual({ videoSize: 50 * MB, chunkSize: 10 * MB, totalChunkCount: 5 });
  });

  test("trailing bytes go into the last chunk (the count rounds down)", () => {
    const checked = plan(23 * MB, 10 * MB, 2);
    expect(typeof checked).toBe("object");
    if (typeof checked === "string") return;
    expect(lastChunkSize(checked)).toBe(13 * MB);
    expect(chunkRange(checked, 1)).toEqual({ first: 10 * MB, last: 23 * MB - 1 });
  });

  test("a file under 5 MB is one chunk of its own size", () => {
    expect(typeof plan(4 * MB, 4 * MB, 1)).toBe("object");
    expect(plan(4 * MB, 2 * MB, 2)).toMatch(/under 5 MB/);
  });

  test("rounding the count down keeps the last chunk under two chunk sizes, so at most 128 MB", () => {
    const checked = plan(64 * MB * 3 + 63 * MB, 64 * MB, 3);
    if (typeof checked === "string") throw new Error(checked);
    expect(lastChunkSize(checked)).toBe(127 * MB);
    expect(plan(64 * MB * 3 + 63 * MB, 64 * MB, 4)).toMatch(/rounded down \(3\)/);
  });
});
