const MB = 1024 * 1024;
/** TikTok's media transfer limits: chunks of 5–64 MB, a trailing chunk of up to 128 MB, 1–1000 chunks. */
export const TIKTOK_CHUNK_LIMITS = { min: 5 * MB, max: 64 * MB, lastMax: 128 * MB, count: 1000 } as const;

/** How a FILE_UPLOAD is cut: what `video/init` declares and what each PUT carries. */
export type ChunkPlan = { videoSize: number; chunkSize: number; totalChunkCount: number };

/**
 * The chunk plan TikTok's media transfer guide asks for: a file under 5 MB goes whole; otherwise
 * chunks of `preferredChunk` (clamped to 5–64 MB, and to the file when it is smaller), the count
 * is `floor(size / chunk)` and the last chunk takes the trailing bytes.
 */
export function planChunks(videoSize: number, preferredChunk = 10 * MB): ChunkPlan {
  if (!Number.isSafeInteger(videoSize) || videoSize < 1) throw new Error("A video has at least one byte.");
  if (videoSize < TIKTOK_CHUNK_LIMITS.min) return { videoSize, chunkSize: videoSize, totalChunkCount: 1 };
  let chunkSize = Math.min(Math.max(preferredChunk, TIKTOK_CHUNK_LIMITS.min), TIKTOK_CHUNK_LIMITS.max);
  if (chunkSize > videoSize) chunkSize = videoSize;
  const totalChunkCount = Math.floor(videoSize / chunkSize);
  if (totalChunkCount > TIKTOK_CHUNK_LIMITS.count) throw new Error("The video needs more than 1000 chunks.");
  return { videoSize, chunkSize, totalChunkCount };
}

/** The inclusive byte range of chunk `index` (0-based): the last one runs to the end of the file. */
export function chunkRange(plan: ChunkPlan, index: number): { first: number; last: number } {
  const first = index * plan.chunkSize;
  const last = index === plan.totalChunkCount - 1 ? plan.videoSize - 1 : first + plan.chunkSize - 1;
  return { first, last };
}

/** The chunk that starts at `offset`, or null when `offset` is not a chunk boundary. */
export function chunkAt(plan: ChunkPlan, offset: number): number | null {
  if (offset % plan.chunkSize !== 0) return null;
  const index = offset / plan.chunkSize;
  return index < plan.totalChunkCount ? index : null;
}
